"""Hosted bots: submitted versions, their records, and what their output may show."""
