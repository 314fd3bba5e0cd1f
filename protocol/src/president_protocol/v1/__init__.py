"""Generated from protos/president/v1/president.proto by `make protos`; do not edit."""
