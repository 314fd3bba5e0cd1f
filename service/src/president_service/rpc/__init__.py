"""The gRPC servicer: translates president.v1 requests into the rooms below."""
