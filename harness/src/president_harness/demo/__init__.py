"""`president demo`: a server, built-in bots and a spectator's view of the table in one terminal."""
