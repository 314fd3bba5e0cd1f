"""The `president.v1` contract in Python: the generated code and the engine's values on the wire.

- `president_protocol.v1`: the code generated from protos/president/v1/president.proto
  (messages ``president_pb2``, stubs and servicer base ``president_pb2_grpc``).
- `president_protocol.convert`: engine value <-> message, in pairs.

Bot authors (through the SDK) and the server both build on it; it depends only
on the engine, protobuf and grpcio.
"""
