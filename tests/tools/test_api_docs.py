"""docs/api.md (tools/gen_api_docs.py): complete, deterministic, and what the committed file says."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from google.protobuf import descriptor_pb2

ROOT = Path(__file__).resolve().parents[2]
PROTO = "president/v1/president.proto"


def load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_api_docs", ROOT / "tools" / "gen_api_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def descriptor_set(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    out = tmp_path_factory.mktemp("api") / "president.binpb"
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", "-I", "protos", "--include_source_info",
         f"--descriptor_set_out={out}", f"protos/{PROTO}"],
        cwd=ROOT, check=True, timeout=120,
    )
    return out.read_bytes()


def test_committed_reference_is_up_to_date(descriptor_set: bytes) -> None:
    text = load_generator().render(descriptor_set)
    assert text == (ROOT / "docs" / "api.md").read_text(), "docs/api.md is stale: run 'make api-docs'"


def test_output_is_deterministic(descriptor_set: bytes) -> None:
    generator = load_generator()
    assert generator.render(descriptor_set) == generator.render(descriptor_set)


def test_every_rpc_message_field_and_enum_value_is_documented(descriptor_set: bytes) -> None:
    text = load_generator().render(descriptor_set)
    file = descriptor_pb2.FileDescriptorSet.FromString(descriptor_set).file[0]
    for method in file.service[0].method:
        assert f"\n### {method.name}\n" in text
    for message in file.message_type:
        assert f"\n### {message.name}\n" in text
        for field in message.field:
            assert f"| `{field.name}` | {field.number} |" in text, f"{message.name}.{field.name}"
    for enum in file.enum_type:
        assert f"\n### {enum.name}\n" in text
        for value in enum.value:
            assert f"| `{value.name}` | {value.number} |" in text
    assert "| `turn_id` | 1 | uint64 |  | The turn id from the prompt. |" in text
    assert "`rpc Play(stream PlayRequest) returns (stream PlayResponse)` (bidirectional stream)" in text


def test_input_without_source_info_is_refused(descriptor_set: bytes) -> None:
    generator = load_generator()
    files = descriptor_pb2.FileDescriptorSet.FromString(descriptor_set)
    files.file[0].ClearField("source_code_info")
    with pytest.raises(generator.ApiDocsError, match="--include_source_info"):
        generator.render(files.SerializeToString())
