"""The JSON form in which the pages receive the contract's messages: the proto3 JSON mapping, nothing added."""

from __future__ import annotations

from typing import Any

from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message


def proto_json(message: Message) -> dict[str, Any]:
    """`message` with the .proto's field names and every field present, so a page need not know the defaults."""
    return MessageToDict(message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)
