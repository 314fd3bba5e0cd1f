"""Client SDK for the President game service.

`president_sdk.proto.president.v1` holds the generated code of the public
contract (protos/president/v1/president.proto); `president_sdk.wire` converts
between its messages and the engine's types.
"""
