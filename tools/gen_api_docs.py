"""Write docs/api.md from the comments of the president.v1 contract.

The comments in protos/ are the one place the API is described (buf lint's
COMMENTS rule makes every element carry one); this turns them into a Markdown
reference so the two cannot drift apart. Input is a FileDescriptorSet made with
source info:

    python -m grpc_tools.protoc -I protos --include_source_info \\
        --descriptor_set_out=build/api.binpb protos/president/v1/president.proto
    python tools/gen_api_docs.py build/api.binpb docs/api.md

The output depends only on the descriptor set, so `make check-api-docs` can
compare it byte for byte with the committed file.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from google.protobuf import descriptor_pb2

FieldProto = descriptor_pb2.FieldDescriptorProto

# Field numbers of the descriptor messages, used in SourceCodeInfo location paths.
FILE_MESSAGE, FILE_ENUM, FILE_SERVICE, FILE_SYNTAX = 4, 5, 6, 12
MESSAGE_FIELD, MESSAGE_NESTED, MESSAGE_ENUM, MESSAGE_ONEOF = 2, 3, 4, 8
ENUM_VALUE = 2
SERVICE_METHOD = 2

SCALARS = {
    FieldProto.TYPE_DOUBLE: "double",
    FieldProto.TYPE_FLOAT: "float",
    FieldProto.TYPE_INT64: "int64",
    FieldProto.TYPE_UINT64: "uint64",
    FieldProto.TYPE_INT32: "int32",
    FieldProto.TYPE_FIXED64: "fixed64",
    FieldProto.TYPE_FIXED32: "fixed32",
    FieldProto.TYPE_BOOL: "bool",
    FieldProto.TYPE_STRING: "string",
    FieldProto.TYPE_BYTES: "bytes",
    FieldProto.TYPE_UINT32: "uint32",
    FieldProto.TYPE_SFIXED32: "sfixed32",
    FieldProto.TYPE_SFIXED64: "sfixed64",
    FieldProto.TYPE_SINT32: "sint32",
    FieldProto.TYPE_SINT64: "sint64",
}

WELL_KNOWN_URL = "https://protobuf.dev/reference/protobuf/google.protobuf/#"


class ApiDocsError(ValueError):
    """The descriptor set cannot be documented (wrong input, or not one file)."""


@dataclass(frozen=True, kw_only=True)
class Comments:
    """The comments of every element of one file, by location path."""

    leading: dict[tuple[int, ...], str]
    detached: dict[tuple[int, ...], tuple[str, ...]]
    line: dict[tuple[int, ...], int]

    @classmethod
    def of(cls, file: descriptor_pb2.FileDescriptorProto) -> Comments:
        if not file.HasField("source_code_info"):
            raise ApiDocsError(f"{file.name} has no source info: run protoc with --include_source_info")
        leading: dict[tuple[int, ...], str] = {}
        detached: dict[tuple[int, ...], tuple[str, ...]] = {}
        line: dict[tuple[int, ...], int] = {}
        for location in file.source_code_info.location:
            path = tuple(location.path)
            leading[path] = dedent(location.leading_comments)
            detached[path] = tuple(dedent(text) for text in location.leading_detached_comments)
            line[path] = location.span[0]
        return cls(leading=leading, detached=detached, line=line)

    def text(self, path: tuple[int, ...]) -> str:
        return self.leading.get(path, "")

    def cell(self, path: tuple[int, ...]) -> str:
        """The comment as one table cell: a single line, pipes escaped."""
        return " ".join(self.text(path).split()).replace("|", "\\|")

    def section(self, path: tuple[int, ...]) -> str | None:
        """The title of a banner comment (a line of dashes, a title, dashes) just above `path`."""
        for block in self.detached.get(path, ()):
            words = [line.strip() for line in block.splitlines() if line.strip() and not set(line.strip()) <= {"-"}]
            if words and any(set(line.strip()) <= {"-"} for line in block.splitlines() if line.strip()):
                return " ".join(words)
        return None


def dedent(comment: str) -> str:
    """A `//` comment as protoc keeps it, without the one space after the slashes."""
    lines = [line[1:] if line.startswith(" ") else line for line in comment.rstrip("\n").split("\n")]
    return "\n".join(lines).strip("\n")


def slug(title: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


@dataclass(frozen=True, kw_only=True)
class TypeDoc:
    """A message or enum to document, with where its comments are."""

    name: str  # relative to the package, e.g. "Card" or "Outer.Inner"
    path: tuple[int, ...]
    message: descriptor_pb2.DescriptorProto | None = None
    enum: descriptor_pb2.EnumDescriptorProto | None = None


def collect_types(file: descriptor_pb2.FileDescriptorProto) -> list[TypeDoc]:
    """Every message and enum of the file, nested ones right after their parent."""

    def walk(message: descriptor_pb2.DescriptorProto, name: str, path: tuple[int, ...]) -> Iterator[TypeDoc]:
        yield TypeDoc(name=name, path=path, message=message)
        for i, nested in enumerate(message.nested_type):
            if not nested.options.map_entry:
                yield from walk(nested, f"{name}.{nested.name}", (*path, MESSAGE_NESTED, i))
        for i, enum in enumerate(message.enum_type):
            yield TypeDoc(name=f"{name}.{enum.name}", path=(*path, MESSAGE_ENUM, i), enum=enum)

    docs: list[TypeDoc] = []
    for i, message in enumerate(file.message_type):
        docs.extend(walk(message, message.name, (FILE_MESSAGE, i)))
    for i, enum in enumerate(file.enum_type):
        docs.append(TypeDoc(name=enum.name, path=(FILE_ENUM, i), enum=enum))
    return docs


class Renderer:
    """Builds the Markdown of one file; anchors are fixed before anything is written."""

    def __init__(self, file: descriptor_pb2.FileDescriptorProto, source: str) -> None:
        self.file = file
        self.source = source
        self.comments = Comments.of(file)
        self.package = f".{file.package}." if file.package else "."
        types = collect_types(file)
        self.types = sorted(types, key=lambda t: (self.comments.line.get(t.path[:2], 0), t.path))
        self.type_names = {t.name for t in types}
        self.anchors: dict[tuple[str, str], str] = {}
        used: dict[str, int] = {}
        for key, title in self.headings():
            base = slug(title)
            count = used.get(base, 0)
            used[base] = count + 1
            self.anchors[key] = base if count == 0 else f"{base}-{count}"

    def headings(self) -> Iterator[tuple[tuple[str, str], str]]:
        """Every heading in output order, keyed by (kind, name)."""
        yield ("contents", ""), "Contents"
        for service in self.file.service:
            yield ("service", service.name), f"Service {service.name}"
            for method in service.method:
                yield ("rpc", f"{service.name}.{method.name}"), method.name
        for title, docs in self.sections():
            yield ("section", title), title
            for doc in docs:
                yield ("type", doc.name), doc.name

    def sections(self) -> list[tuple[str, list[TypeDoc]]]:
        """Types grouped under the banner comments of the file (untitled ones under "Types")."""
        out: list[tuple[str, list[TypeDoc]]] = []
        for doc in self.types:
            title = self.comments.section(doc.path)
            if title is not None or not out:
                out.append((title or "Types", []))
            out[-1][1].append(doc)
        return out

    def link(self, key: tuple[str, str], text: str) -> str:
        return f"[{text}](#{self.anchors[key]})"

    def type_ref(self, type_name: str) -> str:
        """A message or enum type as a link: to its section here, or to the well-known types."""
        if type_name.startswith(self.package) and type_name[len(self.package) :] in self.type_names:
            name = type_name[len(self.package) :]
            return self.link(("type", name), name)
        if type_name.startswith(".google.protobuf."):
            name = type_name[len(".google.protobuf.") :]
            return f"[google.protobuf.{name}]({WELL_KNOWN_URL}{name.lower()})"
        return f"`{type_name.lstrip('.')}`"

    def field_type(self, field: descriptor_pb2.FieldDescriptorProto) -> str:
        if field.type in (FieldProto.TYPE_MESSAGE, FieldProto.TYPE_ENUM, FieldProto.TYPE_GROUP):
            return self.type_ref(field.type_name)
        return SCALARS[field.type]

    def render(self) -> str:
        out: list[str] = [
            f"# {self.file.package} API reference",
            "",
            f"<!-- Generated from {self.source} by `make api-docs` (tools/gen_api_docs.py); do not edit. -->",
            "",
        ]
        intro = self.comments.text((FILE_SYNTAX,))
        if intro:
            out += [intro, ""]
        out += ["## Contents", ""]
        for service in self.file.service:
            out.append(f"- {self.link(('service', service.name), f'Service {service.name}')}")
        for title, docs in self.sections():
            names = ", ".join(self.link(("type", d.name), d.name) for d in docs)
            out.append(f"- {self.link(('section', title), title)}: {names}")
        out.append("")
        for i, service in enumerate(self.file.service):
            out += self.render_service(service, (FILE_SERVICE, i))
        for title, docs in self.sections():
            out += [f"## {title}", ""]
            for doc in docs:
                out += self.render_message(doc) if doc.message is not None else self.render_enum(doc)
        return "\n".join(out).rstrip("\n") + "\n"

    def render_service(self, service: descriptor_pb2.ServiceDescriptorProto, path: tuple[int, ...]) -> list[str]:
        out = [f"## Service {service.name}", ""]
        if self.comments.text(path):
            out += [self.comments.text(path), ""]
        out += ["| RPC | Request | Response | Kind |", "|---|---|---|---|"]
        for method in service.method:
            key = ("rpc", f"{service.name}.{method.name}")
            out.append(
                f"| {self.link(key, method.name)} | {self.stream_ref(method.client_streaming, method.input_type)} "
                f"| {self.stream_ref(method.server_streaming, method.output_type)} | {rpc_kind(method)} |"
            )
        out.append("")
        for j, method in enumerate(service.method):
            request = ("stream " if method.client_streaming else "") + method.input_type.split(".")[-1]
            response = ("stream " if method.server_streaming else "") + method.output_type.split(".")[-1]
            out += [
                f"### {method.name}",
                "",
                f"`rpc {method.name}({request}) returns ({response})` ({rpc_kind(method)})",
                "",
            ]
            text = self.comments.text((*path, SERVICE_METHOD, j))
            if text:
                out += [text, ""]
        return out

    def stream_ref(self, streaming: bool, type_name: str) -> str:
        return ("stream " if streaming else "") + self.type_ref(type_name)

    def render_message(self, doc: TypeDoc) -> list[str]:
        message = doc.message
        assert message is not None
        out = [f"### {doc.name}", ""]
        if self.comments.text(doc.path):
            out += [self.comments.text(doc.path), ""]
        if not message.field:
            return [*out, "No fields.", ""]
        real_oneofs = {
            f.oneof_index for f in message.field if f.HasField("oneof_index") and not f.proto3_optional
        }
        out += ["| Field | Number | Type | Label | Description |", "|---|---|---|---|---|"]
        for i, field in enumerate(message.field):
            out.append(
                f"| `{field.name}` | {field.number} | {self.field_type(field)} | {self.label(message, field)} "
                f"| {self.comments.cell((*doc.path, MESSAGE_FIELD, i))} |"
            )
        out.append("")
        for index in sorted(real_oneofs):
            name = message.oneof_decl[index].name
            in_oneof = [f for f in message.field if f.HasField("oneof_index") and f.oneof_index == index]
            members = ", ".join(f"`{f.name}`" for f in in_oneof)
            text = self.comments.cell((*doc.path, MESSAGE_ONEOF, index))
            out += [f"Oneof `{name}` (exactly one of {members}): {text}", ""]
        return out

    @staticmethod
    def label(message: descriptor_pb2.DescriptorProto, field: descriptor_pb2.FieldDescriptorProto) -> str:
        if field.label == FieldProto.LABEL_REPEATED:
            return "repeated"
        if field.proto3_optional:
            return "optional"
        if field.HasField("oneof_index"):
            return f"oneof `{message.oneof_decl[field.oneof_index].name}`"
        return ""

    def render_enum(self, doc: TypeDoc) -> list[str]:
        enum = doc.enum
        assert enum is not None
        out = [f"### {doc.name}", ""]
        if self.comments.text(doc.path):
            out += [self.comments.text(doc.path), ""]
        out += ["| Value | Number | Description |", "|---|---|---|"]
        for i, value in enumerate(enum.value):
            out.append(f"| `{value.name}` | {value.number} | {self.comments.cell((*doc.path, ENUM_VALUE, i))} |")
        return [*out, ""]


def rpc_kind(method: descriptor_pb2.MethodDescriptorProto) -> str:
    if method.client_streaming and method.server_streaming:
        return "bidirectional stream"
    if method.server_streaming:
        return "server stream"
    if method.client_streaming:
        return "client stream"
    return "unary"


def render(descriptor_set: bytes, source: str | None = None) -> str:
    """The Markdown reference of the one file in a serialized FileDescriptorSet."""
    files = descriptor_pb2.FileDescriptorSet.FromString(descriptor_set).file
    if len(files) != 1:
        raise ApiDocsError(f"expected the descriptor set of one file (without --include_imports), got {len(files)}")
    file = files[0]
    return Renderer(file, source or f"protos/{file.name}").render()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("descriptor_set", type=Path, help="FileDescriptorSet written by protoc --include_source_info")
    parser.add_argument("output", type=Path, help="the Markdown file to write (e.g. docs/api.md)")
    args = parser.parse_args(argv)
    try:
        text = render(args.descriptor_set.read_bytes())
    except ApiDocsError as exc:
        print(f"gen_api_docs: {exc}", file=sys.stderr)
        return 1
    args.output.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
