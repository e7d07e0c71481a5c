"""Which credential reaches KFP: a flag's, else the pod's token, else none."""

from __future__ import annotations

import pytest

from kubeflow.operator.credentials import (
    NO_CREDENTIAL,
    SA_TOKEN_ENV,
    current_token,
    find_credential,
)


@pytest.fixture
def pod_token(tmp_path):
    path = tmp_path / "token"
    path.write_text("pod-token\n")
    return path


def test_the_pods_token_is_used_when_mounted_and_read_again_each_time(pod_token):
    credential = find_credential(None, None, None, {SA_TOKEN_ENV: str(pod_token)})
    assert credential.source == f"the pod's service-account token {pod_token}"
    assert current_token(credential) == "pod-token"
    pod_token.write_text("rotated")  # the kubelet rotates projected tokens
    assert current_token(credential) == "rotated"


def test_a_flag_wins_over_the_pods_token(pod_token, tmp_path):
    env = {SA_TOKEN_ENV: str(pod_token)}
    assert current_token(find_credential("mine", None, None, env)) == "mine"
    token_file = tmp_path / "mine"
    token_file.write_text(" from-file \n")
    from_file = find_credential(None, token_file, None, env)
    assert (from_file.source, current_token(from_file)) == (
        f"--token-file {token_file}",
        "from-file",
    )
    cookie = find_credential(None, None, "authservice_session=abc", env)
    assert (cookie.source, cookie.cookie, current_token(cookie)) == (
        "--cookie",
        "authservice_session=abc",
        None,
    )


def test_no_pod_token_and_no_flag_is_no_credential(tmp_path):
    assert find_credential(None, None, None, {SA_TOKEN_ENV: str(tmp_path / "absent")}) == (
        NO_CREDENTIAL
    )


@pytest.mark.parametrize(
    ("token", "cookie", "message"),
    [("t", "c", "give one credential, not --token and --cookie")],
)
def test_two_credentials_are_refused(token, cookie, message):
    with pytest.raises(ValueError, match=message):
        find_credential(token, None, cookie, {})


def test_an_unreadable_or_empty_token_file_is_named(tmp_path):
    with pytest.raises(ValueError, match=r"--token-file .*absent: cannot read it"):
        find_credential(None, tmp_path / "absent", None, {})
    (tmp_path / "empty").write_text("\n")
    with pytest.raises(ValueError, match=r"--token-file .*empty is empty"):
        find_credential(None, tmp_path / "empty", None, {})
