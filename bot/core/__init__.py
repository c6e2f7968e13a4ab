"""The platform-free core: events in, outgoing messages out.

Nothing in this package imports a chat SDK, SQLAlchemy or APScheduler; storage
reaches it through the ports in :mod:`bot.core.ports`, time through a clock.
"""
