"""The Slack app manifest and ``studybot slack manifest``; the command prefix setting."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from bot.cli import main
from bot.cli.slack import BOT_EVENTS, build_manifest
from bot.config import Settings
from tests.adapters.slack.conftest import AdapterFactory, dispatch
from tests.adapters.slack.fake_slack import FakeSlack
from tests.adapters.slack.payloads import slash

ROOT = Path(__file__).resolve().parents[3]
REGENERATE = (
    "is out of date with the command table: regenerate it with "
    "`studybot slack manifest` (see the comment at its top)"
)


def test_the_socket_mode_manifest_file_is_what_the_cli_prints() -> None:
    in_file = yaml.safe_load((ROOT / "slack" / "manifest.yml").read_text())
    assert in_file == build_manifest(), f"slack/manifest.yml {REGENERATE}"
    assert in_file["settings"]["socket_mode_enabled"] is True
    assert "request_url" not in in_file["settings"]["interactivity"]


def test_the_http_manifest_file_is_what_the_cli_prints_for_its_url() -> None:
    in_file = yaml.safe_load((ROOT / "slack" / "manifest.http.yml").read_text())
    expected = build_manifest("https://studybot.example.com")
    assert in_file == expected, f"slack/manifest.http.yml {REGENERATE}"


def test_the_manifest_subscribes_to_what_the_adapter_listens_for() -> None:
    manifest = build_manifest()
    assert manifest["settings"]["event_subscriptions"]["bot_events"] == BOT_EVENTS
    assert manifest["features"]["app_home"]["home_tab_enabled"] is True
    scopes = manifest["oauth_config"]["scopes"]["bot"]
    for needed in ("commands", "chat:write", "users:read", "im:write", "files:write"):
        assert needed in scopes


async def test_every_slash_command_of_a_prefixed_manifest_is_answered(
    make_adapter: AdapterFactory, fake_slack: FakeSlack
) -> None:
    slack = make_adapter(studybot_slack_command_prefix="sb-")
    commands = [c["command"] for c in build_manifest(prefix="sb-")["features"]["slash_commands"]]
    assert all(c.startswith("/sb-") and len(c) <= 32 for c in commands)
    for command in commands:
        assert (await dispatch(slack, slash(command))).status == 200
        await slack.settled()
    replies = fake_slack.called(("chat.postMessage", "chat.postEphemeral"))
    assert len(replies) >= len(commands)
    assert not any("Unknown command" in str(r.args.get("text")) for r in replies)


def test_the_cli_prints_an_http_manifest_for_a_url(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["slack", "manifest", "--url", "https://bot.example.org", "--prefix", "sb-"]) == 0
    manifest = yaml.safe_load(capsys.readouterr().out)
    url = "https://bot.example.org/slack/events"
    settings = manifest["settings"]
    assert settings["socket_mode_enabled"] is False
    assert settings["event_subscriptions"]["request_url"] == url
    assert settings["interactivity"]["request_url"] == url
    commands = manifest["features"]["slash_commands"]
    assert {c["url"] for c in commands} == {url}
    assert "/sb-daily" in [c["command"] for c in commands]


def test_a_url_with_a_path_is_kept_as_it_is(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["slack", "manifest", "--url", "https://example.org/bots/slack/events"]) == 0
    manifest = yaml.safe_load(capsys.readouterr().out)
    request_url = manifest["settings"]["event_subscriptions"]["request_url"]
    assert request_url == "https://example.org/bots/slack/events"


@pytest.mark.parametrize(
    "argv",
    [
        ["--url", "http://example.org"],
        ["--url", "example.org"],
        ["--prefix", "Not A Prefix!"],
        ["--name", ""],
    ],
)
def test_bad_manifest_options_exit_2_with_a_message(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["slack", "manifest", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("studybot slack manifest:")


def test_the_command_prefix_setting_is_normalised_and_checked() -> None:
    assert Settings(studybot_slack_command_prefix=" /SB- ").studybot_slack_command_prefix == "sb-"
    assert Settings().studybot_slack_command_prefix == ""
    with pytest.raises(ValidationError):
        Settings(studybot_slack_command_prefix="no spaces please")
