"""What drives President servers and bots from outside: the `president` command, ladders, the live demo.

It talks to servers over gRPC as any client does (and starts them, as a
child process or in-process for the demo); nothing in the server core or the
SDK imports it.
"""
