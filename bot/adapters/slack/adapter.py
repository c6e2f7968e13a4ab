"""The Slack adapter: a slack-bolt ``AsyncApp`` whose listeners translate and call the core.

Every listener acks first (Slack wants an answer within 3 s) and does the rest
after the ack: look the user up, run the core (``App.handle``), send the
replies. Modals go first among the replies, while the interaction's
``trigger_id`` is fresh. Socket Mode when ``SLACK_APP_TOKEN`` is set; else HTTP
at ``POST /slack/events`` on the one web server.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

import aiohttp
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.adapter.starlette.async_handler import to_starlette_response
from slack_bolt.async_app import AsyncApp, AsyncBoltContext
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from bot.adapters.base import STOP_DRAIN, report_failure
from bot.adapters.slack import translate
from bot.adapters.slack.sender import SlackNotifier, SlackSender
from bot.adapters.slack.translate import Payload, ReplyTarget, SlackUser
from bot.adapters.slack.users import UserDirectory
from bot.bootstrap import App
from bot.config import Settings
from bot.core.errors import ConfigError
from bot.core.events import Event
from bot.core.messages import Card, Delivery, Outgoing
from bot.delivery import Notifier, RetryLater
from bot.logging_setup import OncePerOutage

log = logging.getLogger(__name__)
EVENTS_PATH = "/slack/events"
Ack = Callable[..., Awaitable[Any]]


#: apps.connections.open errors that no retry will mend: the app token is wrong.
REFUSED_TOKEN = frozenset(
    {"invalid_auth", "not_authed", "not_allowed_token_type", "token_revoked", "account_inactive"}
)
CONNECT_RETRY_FIRST, CONNECT_RETRY_MAX = 1.0, 60.0  # seconds between attempts to connect

SOCKET_MODE_LOG = logging.getLogger("bot.adapters.slack.socket_mode")
SOCKET_MODE_LOG.addFilter(
    OncePerOutage(
        "Slack",
        failure="Failed to connect",
        recovered=("has been established",),
        dropped=("abandoned by disconnect()",),  # our own stop: the adapter says so
    )
)


def _drop_token_unused(record: logging.LogRecord) -> bool:
    """Bolt warns that SLACK_BOT_TOKEN (which it reads itself) is unused when it is given a
    client: true, and meant, so not worth a line at every start."""
    return "token` will be unused" not in record.getMessage()


def _drop_request_bodies(record: logging.LogRecord) -> bool:
    """Bolt logs a rejected request's whole body; the endpoint refuses unsigned requests
    before Bolt sees them, and this keeps any that still reach it out of the log."""
    return "Invalid request signature detected" not in record.getMessage()


BOLT_LOG = logging.getLogger("bot.adapters.slack.bolt")
BOLT_LOG.addFilter(_drop_token_unused)
BOLT_LOG.addFilter(_drop_request_bodies)

RETRY_REPLY_AFTER = 5.0  # seconds before the outbox tries a reply Slack failed to take
MAX_SKEW_SECONDS = 5 * 60  # Slack's own bound on a request's age
_TIMESTAMP = re.compile(r"[0-9]{1,12}")
_SIGNATURE = re.compile(r"v0=[0-9a-f]{64}")


def signed_by_slack(secret: str, body: bytes, timestamp: str, signature: str, now: float) -> bool:
    """Whether ``body`` carries Slack's signature, ``v0=HMAC-SHA256(secret,
    "v0:{timestamp}:{body}")``, made at most five minutes from ``now``. Any header that is
    not of Slack's form (a timestamp of ``abc`` or ``1e3``, a missing signature) is simply
    unsigned; the body's bytes are signed as they are, whatever their encoding."""
    if not _TIMESTAMP.fullmatch(timestamp) or not _SIGNATURE.fullmatch(signature):
        return False
    if abs(now - int(timestamp)) > MAX_SKEW_SECONDS:
        return False
    base = b"v0:" + timestamp.encode() + b":" + body
    expected = "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, signature)


def api_url(url: str) -> str:
    """The Web API base URL as slack-sdk wants it: ending in ``/``."""
    return url if url.endswith("/") else url + "/"


class SlackAdapter:
    """The Slack platform: listeners, the outbox notifier, HTTP route or Socket Mode."""

    name = "slack"

    def __init__(
        self,
        app: App,
        settings: Settings,
        *,
        user_directory: UserDirectory | None = None,
    ) -> None:
        if settings.slack_bot_token is None:
            raise ConfigError("SLACK_BOT_TOKEN is not set.")
        if settings.slack_signing_secret is None and settings.slack_app_token is None:
            raise ConfigError(
                "Set SLACK_SIGNING_SECRET (HTTP mode) or SLACK_APP_TOKEN (Socket Mode)."
            )
        self.app = app
        self.settings = settings
        self.prefix = settings.studybot_slack_command_prefix
        token = settings.slack_bot_token.get_secret_value()
        base_url = api_url(settings.studybot_slack_api_url)
        # Replies to a user wait out a short 429 in place (the SDK honours Retry-After) ...
        self.client = AsyncWebClient(
            token=token,
            base_url=base_url,
            retry_handlers=[
                AsyncConnectionErrorRetryHandler(),
                AsyncRateLimitErrorRetryHandler(max_retry_count=1),
            ],
        )
        # ... while the outbox hands a 429 back to the delivery layer as RetryLater.
        self.delivery_client = AsyncWebClient(token=token, base_url=base_url)
        self.notifier: Notifier = SlackNotifier(SlackSender(self.delivery_client))
        self.sender = SlackSender(self.client)
        self.users = user_directory or UserDirectory(self.client, settings.admin_ids)
        self.app_token = (
            settings.slack_app_token.get_secret_value() if settings.slack_app_token else None
        )
        secret = settings.slack_signing_secret
        self.bolt = AsyncApp(
            name="studybot",
            client=self.client,
            signing_secret=secret.get_secret_value() if secret else "",
            logger=BOLT_LOG,
            process_before_response=False,
        )
        self._register()
        self.socket_handler: AsyncSocketModeHandler | None = None
        # Socket Mode URLs come from a client without retry handlers: its callers retry.
        self.socket_client = AsyncWebClient(base_url=base_url, retry_handlers=[])
        self._session: aiohttp.ClientSession | None = None
        self._busy = 0
        self._idle = asyncio.Event()
        self._idle.set()
        app.register_notifier(self.name, self.notifier)

    # --- the PlatformAdapter protocol -------------------------------------------------------

    @property
    def socket_mode(self) -> bool:
        return self.app_token is not None

    def routes(self) -> list[BaseRoute]:
        """``POST /slack/events`` in HTTP mode; nothing in Socket Mode."""
        if self.socket_mode:
            return []
        return [Route(EVENTS_PATH, self._endpoint, methods=["POST"])]

    async def start(self) -> None:
        """Open the Socket Mode connection when an app token is set, waiting (and retrying)
        while Slack cannot be reached; a ConfigError when Slack refuses the app token.

        Web API calls share one HTTP session (kept-alive connections) from here until
        :meth:`stop`; without it slack-sdk opens a session and a connection per call."""
        if self._session is None:
            # The SDK's own per-call sessions carry its timeout; a shared one must too.
            timeout = aiohttp.ClientTimeout(total=self.client.timeout)
            self._session = aiohttp.ClientSession(timeout=timeout)
            self.client.session = self.delivery_client.session = self._session
        if self.app_token is None:
            log.info("Slack: HTTP mode at %s", EVENTS_PATH)
            return
        # slack-sdk's own connect loop would retry for ever, with a traceback each time, and
        # never give up on a bad token: open the first URL here, then let it take over.
        handler = AsyncSocketModeHandler(
            self.bolt, self.app_token, logger=SOCKET_MODE_LOG, web_client=self.socket_client
        )
        self.socket_handler = handler
        handler.client.wss_uri = await self._socket_mode_url()
        await handler.connect_async()  # type: ignore[no-untyped-call]
        log.info("Slack: connected in Socket Mode")

    async def _socket_mode_url(self) -> str:
        """A WebSocket URL from ``apps.connections.open``, retried with backoff while Slack
        cannot be reached (said once, with the reason)."""
        assert self.app_token is not None
        delay, warned = CONNECT_RETRY_FIRST, False
        while True:
            try:
                response = await self.socket_client.apps_connections_open(app_token=self.app_token)
                return str(response["url"])
            except SlackApiError as exc:
                error = str(exc.response.get("error", ""))
                if error in REFUSED_TOKEN:
                    raise ConfigError(
                        f"Slack refused SLACK_APP_TOKEN ({error}): use the app-level token "
                        "(xapp-…) with the connections:write scope, from Basic Information → "
                        "App-Level Tokens"
                    ) from exc
                reason = f"Slack answered {error or exc.response.status_code}"
            except (aiohttp.ClientError, OSError, TimeoutError) as exc:
                reason = str(exc) or type(exc).__name__
            if not warned:
                log.warning(
                    "Slack: cannot open a Socket Mode connection (%s); retrying until it can",
                    reason,
                )
                warned = True
            await asyncio.sleep(delay)
            delay = min(delay * 2, CONNECT_RETRY_MAX)

    async def stop(self) -> None:
        """Finish the events already taken (recorded and answered; at most
        :data:`~bot.adapters.base.STOP_DRAIN` seconds), let the outbox's pass in flight
        finish, then disconnect."""
        try:
            await self.settled(timeout=STOP_DRAIN)
        except TimeoutError:
            log.warning(
                "Slack: stopping with %d events unfinished after %.0fs", self._busy, STOP_DRAIN
            )
        if self.socket_handler is not None:
            await self.socket_handler.close_async()  # type: ignore[no-untyped-call]
            self.socket_handler = None
            log.info("Slack: disconnected")
        # The outbox's pass in flight (a post Slack has not answered yet) finishes on this
        # session: closing it under the call would mark a post Slack took as failed.
        await self.app.runner.deliverer.flush()
        if self._session is not None:
            # Calls still to come (the outbox's last pass) open their own session again.
            self.client.session = self.delivery_client.session = None
            await self._session.close()
            self._session = None

    async def _endpoint(self, request: Request) -> Response:
        """``POST /slack/events``: the signature is checked on the raw bytes first, so an
        unsigned request (malformed or not) gets 401 and is never parsed or logged; a signed
        body that is not a Slack payload gets 400, with one line in the log."""
        body = await request.body()  # bounded by bot.web.BodyLimit
        secret = self.settings.slack_signing_secret
        if secret is None or not signed_by_slack(
            secret.get_secret_value(),
            body,
            request.headers.get("x-slack-request-timestamp", ""),
            request.headers.get("x-slack-signature", ""),
            time.time(),
        ):
            return JSONResponse({"error": "invalid request"}, status_code=401)
        try:
            bolt_request = AsyncBoltRequest(
                body=body.decode("utf-8"),
                query=request.query_params,  # type: ignore[arg-type]
                headers=request.headers,  # type: ignore[arg-type]
            )
            if not isinstance(bolt_request.body, dict):
                raise TypeError("not a JSON object")
        except (ValueError, TypeError, AttributeError, KeyError) as exc:
            log.warning(
                "Slack: a signed request that is not a Slack payload (%s)", type(exc).__name__
            )
            return JSONResponse({"error": "not a Slack payload"}, status_code=400)
        return to_starlette_response(await self.bolt.async_dispatch(bolt_request))

    # --- listeners ---------------------------------------------------------------------------

    def _register(self) -> None:
        bolt = self.bolt
        pattern = re.compile(rf"^/{re.escape(self.prefix)}[a-z0-9_-]+$")
        bolt.command(pattern)(self.on_command)
        bolt.action(re.compile(r".+"))(self.on_action)
        bolt.view(translate.FORM_CALLBACK_ID)(self.on_submission)
        bolt.event("message")(self.on_message)
        bolt.event("app_mention")(self.on_message)
        bolt.event("app_home_opened")(self.on_home_opened)
        bolt.event("user_change")(self.on_user_change)

    async def _user(self, team: str, user_id: str, name: str = "") -> SlackUser:
        return await self.users.lookup(team, user_id, name)

    @asynccontextmanager
    async def _edge(
        self, what: str, target: ReplyTarget, *, home: bool = False
    ) -> AsyncIterator[None]:
        """The adapter's one edge, around everything a listener does after Slack's request
        arrived: it marks the work (so that ``settled`` and a graceful stop can wait on it),
        and a failure anywhere in it is logged once with its traceback, counted, and
        answered with a short apology to the user (on the App Home tab for ``home``)."""
        self._busy += 1
        self._idle.clear()
        try:
            yield
        except Exception:
            await self._apologise(target, report_failure(log, self.name, what), home=home)
        finally:
            self._busy -= 1
            if self._busy == 0:
                self._idle.set()

    async def _apologise(self, target: ReplyTarget, text: str, *, home: bool) -> None:
        if not target.user:
            return
        card = Card(blocks=(text,))
        try:
            if home:
                await self.sender.publish_home(target.user, card)
                return
            reply = Outgoing(
                Delivery.PRIVATE, target.user, card, channel=target.channel, thread=target.thread
            )
            await self.sender.send(reply, response_url=target.response_url)
        except Exception as exc:  # the failure itself is already logged and counted
            log.warning("Slack: the apology to %s could not be sent either: %r", target.user, exc)

    async def settled(self, timeout: float = 10.0) -> None:
        """Wait until every event taken so far has been handled and answered."""
        await asyncio.wait_for(self._idle.wait(), timeout)

    async def on_command(self, ack: Ack, body: Payload) -> None:
        async with self._edge("a slash command", translate.reply_target(body)):
            await self._command(ack, body)

    async def on_action(self, ack: Ack, body: Payload) -> None:
        async with self._edge("a button or menu", translate.reply_target(body)):
            await self._action(ack, body)

    async def on_submission(self, ack: Ack, body: Payload) -> None:
        async with self._edge("a form", translate.reply_target(body)):
            await self._submission(ack, body)

    async def on_message(self, body: Payload, event: Payload, context: AsyncBoltContext) -> None:
        async with self._edge("a message", translate.reply_target(body, event)):
            await self._message(body, event, context.bot_user_id)

    async def on_home_opened(self, body: Payload, event: Payload) -> None:
        target = translate.ReplyTarget(str(event.get("user") or ""))
        async with self._edge("the App Home", target, home=True):
            await self._home_opened(body, event)

    async def _command(self, ack: Ack, body: Payload) -> None:
        await ack()
        team = translate.team_of(body)
        user = await self._user(team, str(body.get("user_id", "")), str(body.get("user_name", "")))
        event = translate.command_event(body, self.prefix, user)
        event = replace(event, delivery=translate.delivery_key(body))
        await self.run(
            event, trigger_id=body.get("trigger_id"), response_url=body.get("response_url")
        )

    async def _action(self, ack: Ack, body: Payload) -> None:
        await ack()
        who = body.get("user") or {}
        user = await self._user(
            translate.team_of(body), str(who.get("id", "")), str(who.get("name", ""))
        )
        channel = translate.action_channel(body) or await self.sender.dm_channel(user.id)
        key = translate.delivery_key(body)
        for n, event in enumerate(translate.action_events(body, user, channel)):
            # each clicked element of the delivery is taken once, on its own
            event = replace(event, delivery=f"{key}#{n}" if key and n else key)
            await self.run(
                event, trigger_id=body.get("trigger_id"), response_url=body.get("response_url")
            )

    async def _submission(self, ack: Ack, body: Payload) -> None:
        await ack()  # closes the modal; the grade comes as a private message
        who = body.get("user") or {}
        user = await self._user(
            translate.team_of(body), str(who.get("id", "")), str(who.get("name", ""))
        )
        event = translate.submission_event(body, user)
        if event is None:
            log.warning("Slack: a submitted view without studybot metadata was ignored")
            return
        await self.run(replace(event, delivery=translate.delivery_key(body)))

    async def _message(self, body: Payload, event: Payload, bot_user_id: str | None) -> None:
        if not translate.is_addressed_message(event, bot_user_id):
            return
        team = translate.team_of(body) or str(event.get("team", ""))
        user = await self._user(team, str(event.get("user")))
        neutral = translate.message_event(body, event, user, bot_user_id)
        if neutral is not None:
            await self.run(replace(neutral, delivery=translate.delivery_key(body, event)))

    async def _home_opened(self, body: Payload, event: Payload) -> None:
        if event.get("tab", "home") != "home":
            return
        user = await self._user(translate.team_of(body), str(event.get("user", "")))
        neutral = translate.home_event(body, event, user)
        if neutral is None:
            return
        replies = await self.app.handle(neutral)
        home = next((r for r in replies if r.tags.get("view") == "home"), None)
        shown = home or next(iter(replies), None)
        if shown is not None:
            await self._guard(self.sender.publish_home(user.id, shown.card), "views.publish")

    async def on_user_change(self, body: Payload, event: Payload) -> None:
        info = event.get("user")
        if isinstance(info, dict):
            self.users.remember(translate.team_of(body), info)

    # --- running the core and replying -----------------------------------------------------

    async def run(
        self,
        event: Event,
        *,
        trigger_id: str | None = None,
        response_url: str | None = None,
    ) -> list[Outgoing]:
        """Hand ``event`` to the core and send its replies; modals first, while the
        trigger is fresh."""
        replies = await self.app.handle(event)
        ordered = sorted(replies, key=lambda r: r.delivery is not Delivery.MODAL)
        for reply in ordered:
            await self._reply(event, reply, trigger_id, response_url)
        return replies

    async def _reply(
        self, event: Event, reply: Outgoing, trigger_id: str | None, response_url: str | None
    ) -> None:
        """Send one reply at once; when Slack cannot take it now (a 5xx, a 429 beyond the
        one the client waits out, the network) the outbox retries it until it goes stale
        (``App.send_later``). A refusal that no retry mends (a 4xx) is logged."""
        try:
            await self.sender.send(reply, trigger_id=trigger_id, response_url=response_url)
        except RetryLater as exc:
            await self.app.send_later(
                self.name, event.workspace, reply, exc.retry_after, "rate-limited"
            )
        except SlackApiError as exc:
            status = exc.response.status_code
            if status < 500:
                log.exception("Slack refused a %s reply", reply.delivery.value)
                return
            await self.app.send_later(
                self.name, event.workspace, reply, RETRY_REPLY_AFTER, f"HTTP {status}"
            )
        except (SlackClientError, aiohttp.ClientError, OSError, TimeoutError) as exc:
            await self.app.send_later(
                self.name, event.workspace, reply, RETRY_REPLY_AFTER, type(exc).__name__
            )

    async def _guard(self, call: Awaitable[object], what: str) -> None:
        """Send, and log (once, without the token) when Slack refuses; the user's next
        action still works."""
        try:
            await call
        except RetryLater as exc:
            log.warning("Slack rate-limited a %s reply: %s", what, exc)
        except SlackClientError:
            log.exception("Slack refused a %s reply", what)


def build_slack_adapter(app: App, settings: Settings) -> SlackAdapter:
    """The adapter ``studybot run`` starts when Slack credentials are set."""
    return SlackAdapter(app, settings)
