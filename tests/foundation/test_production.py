"""The production configuration: ``check --deploy`` passes, and the security headers are sent.

docs/operations.md lists the variables; with them ``manage.py check --deploy`` reports nothing
(not even a warning), and without them it names what is missing.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.test import Client

PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": "x7Hq2-production-like-key-with-many-characters-Zp9wLm3Rt8Vb4Nc6Yd1Kf5",
    "DEAL_SECRET": "a-deal-secret-of-production-length-Qw7Er5Ty3",
    "ALLOWED_HOSTS": "play.example",
    "SECURE_SSL_REDIRECT": "true",
    "TRUST_X_FORWARDED_PROTO": "true",
    "SECURE_HSTS_SECONDS": "31536000",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": "true",
    "SECURE_HSTS_PRELOAD": "true",
    "SESSION_COOKIE_SECURE": "true",
    "CSRF_COOKIE_SECURE": "true",
}
SETTINGS_NAMES = {*PRODUCTION, "DATABASE_POOL_MAX", "WEB_CONCURRENCY", "ASGI_THREADS"}
CHECK = (
    "import django; django.setup(); from django.core.management import call_command; "
    "call_command('check', deploy=True, fail_level='WARNING')"
)


def run_deploy_check(extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {name: value for name, value in os.environ.items() if name not in SETTINGS_NAMES}
    env.update(extra, DJANGO_SETTINGS_MODULE="config.settings")
    return subprocess.run(
        [sys.executable, "-c", CHECK],
        cwd=django_settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_passes_without_a_warning_in_the_production_configuration() -> None:
    result = run_deploy_check(PRODUCTION)

    assert result.returncode == 0, result.stderr[-3000:]
    assert "no issues" in result.stdout + result.stderr


def test_check_deploy_names_what_a_plain_configuration_lacks() -> None:
    plain = {"DEBUG": "false", "SECRET_KEY": PRODUCTION["SECRET_KEY"], "DEAL_SECRET": "d"}

    result = run_deploy_check(plain)

    assert result.returncode != 0
    for warning in ("W004", "W008", "W012", "W016"):
        assert f"security.{warning}" in result.stderr


def test_check_warns_when_workers_times_the_pool_exceed_the_servers_connections() -> None:
    sizing = {**PRODUCTION, "WEB_CONCURRENCY": "12", "DATABASE_POOL_MAX": "10"}
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        sizing["DATABASE_URL"] = "postgres://postgres@127.0.0.1:5432/unused"

    result = run_deploy_check(sizing)

    assert result.returncode != 0
    assert "config.W001" in result.stderr
    assert "12 workers × a pool of 10 connections = 120" in result.stderr


def test_every_page_carries_the_security_headers(client: Client) -> None:
    answer = client.get("/healthz")

    assert answer["X-Content-Type-Options"] == "nosniff"
    assert answer["Referrer-Policy"] == "same-origin"
    assert answer["Cross-Origin-Opener-Policy"] == "same-origin"
    assert answer["X-Frame-Options"] == "DENY"
    assert "camera=()" in answer["Permissions-Policy"]


def directives(policy: str) -> dict[str, list[str]]:
    parts = (part.split() for part in policy.split(";") if part.strip())
    return {words[0]: words[1:] for words in parts}


@pytest.mark.django_db
def test_the_client_gets_a_strict_content_security_policy(client: Client) -> None:
    policy = directives(client.get("/")["Content-Security-Policy"])

    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'"]
    assert policy["style-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]


def test_the_api_docs_may_use_the_inline_styles_of_swagger_ui(client: Client) -> None:
    answer = client.get("/api/docs/")
    policy = directives(answer["Content-Security-Policy"])

    assert answer.status_code == 200
    assert policy["script-src"] == ["'self'"]  # Swagger UI's scripts are files of the service
    assert policy["style-src"] == ["'self'", "'unsafe-inline'"]
    assert "<script>" not in answer.content.decode()  # no inline script for CSP to block


def test_the_client_has_nothing_inline_that_the_policy_would_block() -> None:
    frontend = Path(django_settings.BASE_DIR) / "frontend"
    page = (frontend / "index.html").read_text()
    scripts = re.findall(r"<script\b[^>]*>", page)
    code = "\n".join(path.read_text() for path in (frontend / "static").rglob("*.js"))

    assert scripts and all("src=" in tag for tag in scripts)
    assert not re.search(r"<style\b|\sstyle=|\son[a-z]+=", page)
    assert not re.search(r"\beval\(|new Function\(|setAttribute\(\s*['\"]style", code)
    assert not re.search(r"style=|\son[a-z]+=", code)


@pytest.mark.parametrize("secure", [True, False])
def test_behind_a_proxy_plain_http_is_redirected_and_https_gets_hsts(settings, secure) -> None:
    # given: the production settings of docs/operations.md
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SECURE_HSTS_SECONDS = 31536000
    settings.SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    settings.SECURE_HSTS_PRELOAD = True

    # when
    answer = Client().get("/api/variants/", HTTP_X_FORWARDED_PROTO="https" if secure else "http")

    # then
    if secure:
        assert answer["Strict-Transport-Security"] == (
            "max-age=31536000; includeSubDomains; preload"
        )
    else:
        assert answer.status_code == 301
        assert answer["Location"] == "https://testserver/api/variants/"


def test_the_health_check_is_not_redirected_to_https(settings, client: Client, db) -> None:
    settings.SECURE_SSL_REDIRECT = True

    assert client.get("/healthz").status_code == 200
