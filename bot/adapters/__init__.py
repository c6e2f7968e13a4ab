"""Adapters translate platform payloads to events and render outgoing messages."""
