"""The fake KFP API server's fixture, for every test of the Kubeflow operations."""

from fake_kfp.server import kfp_api  # noqa: F401 - a fixture, found by its name
