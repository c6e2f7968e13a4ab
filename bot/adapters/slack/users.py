"""Who a Slack user is: name, time zone and admin rights from ``users.info``, cached.

A user's entry is refreshed once it is a day old (and at once when Slack sends
``user_change``), so a traveller's new zone is picked up without asking Slack
on every click. When Slack cannot answer, the user still gets served: without
a zone (the workspace's is used) and with admin rights only from the configured
list; the failure is remembered for a few minutes so a missing scope does not
turn every event into a failing API call. Lookups of one user that arrive while
Slack is still answering the first wait for that answer: a burst of clicks by
1,000 new users makes 1,000 ``users.info`` calls, not one per click.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.web.async_client import AsyncWebClient

from bot.adapters.slack.translate import SlackUser

log = logging.getLogger(__name__)
REFRESH_AFTER = 24 * 3600.0
RETRY_FAILED_AFTER = 300.0
MAX_USERS = 20_000


def user_from_info(info: dict[str, Any], admins: frozenset[str]) -> SlackUser:
    """A :class:`SlackUser` from a ``users.info`` user object (or a ``user_change`` one)."""
    profile = info.get("profile") or {}
    user_id = str(info.get("id", ""))
    name = (
        profile.get("display_name")
        or profile.get("real_name")
        or info.get("real_name")
        or info.get("name")
        or ""
    )
    return SlackUser(
        id=user_id,
        name=str(name),
        tz=info.get("tz") or None,
        is_admin=bool(info.get("is_admin") or info.get("is_owner")) or user_id in admins,
    )


class UserDirectory:
    def __init__(
        self,
        client: AsyncWebClient,
        admins: frozenset[str],
        *,
        refresh_after: float = REFRESH_AFTER,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.admins = admins
        self.refresh_after = refresh_after
        self.now = now
        self._cache: OrderedDict[tuple[str, str], tuple[float, SlackUser]] = OrderedDict()
        self._asking: dict[tuple[str, str], asyncio.Task[SlackUser]] = {}

    def _put(self, team: str, user: SlackUser, expires: float) -> None:
        key = (team, user.id)
        self._cache[key] = (expires, user)
        self._cache.move_to_end(key)
        if len(self._cache) > MAX_USERS:
            self._cache.popitem(last=False)

    def remember(self, team: str, info: dict[str, Any]) -> None:
        """Take a fresh user object (from a ``user_change`` event) into the cache."""
        user = user_from_info(info, self.admins)
        if user.id:
            self._put(team, user, self.now() + self.refresh_after)

    async def lookup(self, team: str, user_id: str, fallback_name: str = "") -> SlackUser:
        """The user, from the cache while it is fresh, else from ``users.info``."""
        key = (team, user_id)
        cached = self._cache.get(key)
        if cached is not None and cached[0] > self.now():
            return cached[1]
        asking = self._asking.get(key)
        if asking is None:
            asking = asyncio.create_task(self._ask(team, user_id, fallback_name))
            self._asking[key] = asking
            asking.add_done_callback(lambda _done: self._asking.pop(key, None))
        return await asyncio.shield(asking)

    async def _ask(self, team: str, user_id: str, fallback_name: str) -> SlackUser:
        try:
            response = await self.client.users_info(user=user_id)
            user = user_from_info(dict(response.get("user") or {}), self.admins)
            expires = self.now() + self.refresh_after
        except (SlackClientError, aiohttp.ClientError, TimeoutError) as exc:
            reason = exc.response.get("error") if isinstance(exc, SlackApiError) else exc
            log.warning(
                "users.info failed for %s (%s); serving without Slack's zone or admin rights",
                user_id,
                reason,
            )
            user = SlackUser(user_id, fallback_name, None, user_id in self.admins)
            expires = self.now() + RETRY_FAILED_AFTER
        if not user.id:
            user = SlackUser(user_id, fallback_name, None, user_id in self.admins)
        self._put(team, user, expires)
        return user
