"""The console: a terminal chat with the bot, interactive on a TTY, scriptable from a pipe."""
