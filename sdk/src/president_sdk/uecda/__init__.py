"""The UECda contest's protocol for bots: its wire format, plays, a seat, a table and a client."""
