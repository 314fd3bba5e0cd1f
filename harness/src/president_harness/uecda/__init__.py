"""The UECda contest bridge: contest clients over TCP at a President table, on a server or the engine; its logs."""
