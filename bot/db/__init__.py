"""Storage: SQLAlchemy 2.0 models, the engine, and the unit of work the core talks to."""
