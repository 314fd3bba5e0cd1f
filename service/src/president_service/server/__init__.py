"""The server's edge: the gRPC server that hosts the service and web pages, and its command line."""
