"""Which credential reaches Kubeflow Pipelines, and how it is described in messages.

Multi-user Kubeflow authenticates every API request. Following kfp's client
(``kfp/client/client.py``, ``_load_config`` and ``_get_config_with_default_credentials``;
``kfp/client/set_volume_credentials.py``): a token goes as ``Authorization: Bearer``,
a Dex session as a cookie, and a pod's projected service-account token is read
again before each request, since the kubelet rotates it. A credential named on the
command line wins over the pod's token: people name one to act as someone else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from kfp.client import KF_PIPELINES_SA_TOKEN_ENV, KF_PIPELINES_SA_TOKEN_PATH

# Where a pod's token is mounted, and the variable that moves it: the SDK's own names.
SA_TOKEN_ENV = KF_PIPELINES_SA_TOKEN_ENV
SA_TOKEN_PATH = KF_PIPELINES_SA_TOKEN_PATH


@dataclass(frozen=True)
class Credential:
    """What authenticates the requests: at most one of a token, a token file or a cookie."""

    source: str  # for messages: "--token", "--token-file F", "the pod's token F", ...
    token: str | None = None
    token_file: Path | None = None  # read before each request (a rotating pod token)
    cookie: str | None = None


NO_CREDENTIAL = Credential("no credential")


def _read_token(path: Path, flag: str) -> str:
    """The token in ``path``; ValueError naming ``flag`` when it is missing or empty."""
    try:
        token = path.read_text().strip()
    except OSError as err:
        raise ValueError(f"{flag} {path}: cannot read it ({err.strerror})") from err
    if not token:
        raise ValueError(f"{flag} {path} is empty")
    return token


def find_credential(
    token: str | None, token_file: Path | None, cookie: str | None, environ: Mapping[str, str]
) -> Credential:
    """The credential to use: a flag's, else the pod's service-account token, else none.

    ValueError (bad input) when more than one flag is given, or a token file cannot be read.
    """
    given = [flag for flag, value in (("--token", token), ("--token-file", token_file),
                                      ("--cookie", cookie)) if value]  # fmt: skip
    if len(given) > 1:
        raise ValueError(f"give one credential, not {' and '.join(given)}")
    if token:
        return Credential("--token", token=token)
    if token_file:
        _read_token(token_file, "--token-file")
        return Credential(f"--token-file {token_file}", token_file=token_file)
    if cookie:
        return Credential("--cookie", cookie=cookie)
    pod_token = Path(environ.get(SA_TOKEN_ENV) or SA_TOKEN_PATH)
    if pod_token.is_file():
        _read_token(pod_token, SA_TOKEN_ENV)
        return Credential(f"the pod's service-account token {pod_token}", token_file=pod_token)
    return NO_CREDENTIAL


def current_token(credential: Credential) -> str | None:
    """The bearer token now: a file's is read again, as kfp does for a rotating pod token."""
    if credential.token_file is not None:
        return _read_token(credential.token_file, "token file")
    return credential.token
