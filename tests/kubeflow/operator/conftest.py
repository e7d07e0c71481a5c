"""The fake KFP API server's fixture, for every test of the Kubeflow operations."""

from tests.fake_kfp_api import kfp_api  # noqa: F401 - a fixture, found by its name
