"""A fake Kubeflow Pipelines API server (the v2beta1 REST API) for tests, a module per service.

``server.py`` holds ``FakeKfpApi`` (state, routing, authentication, the spec checks, list
options) and the ``kfp_api`` fixture; ``pipelines.py``, ``experiments.py``, ``runs.py`` and
``recurring_runs.py`` its routes, one service each; ``rules.py`` the releases' rules they
share (errors, filters, sorting, cron). Why a fake server and not ``responses``:
``docs/decisions/kfp-client.md``.

``FakeKfpApi`` serves the routes ``kfp_server_api``'s generated classes call (the same
ones ``kfp.Client`` uses) on 127.0.0.1, keeps pipelines, versions, experiments, runs
and recurring runs in memory, records every request in ``calls`` and every request
that breaks the API's spec in ``violations``.

The rules follow the API server of the KFP release the installed client was generated
from: kfp-server-api 2.0.x (the legacy stack) talks to KFP 2.0.5's server,
kfp-server-api 2.16.x (the current stack) to KFP 2.16.1's. ``RELEASE`` is picked once
from ``kfp_server_api.__version__``; ``FakeKfpApi(release=...)`` takes the other one,
so a test can check both behaviours on either stack (2.16.1's added fields then travel
as JSON the older client ignores). Each rule cites the Go file it follows
(kubeflow/pipelines at the release's tag, files under ``backend/``); where the
releases differ, both are cited. Status codes are the real server's: grpc-gateway
maps a gRPC code to HTTP (InvalidArgument 400, NotFound 404, AlreadyExists 409,
PermissionDenied 403, Unauthenticated 401, Internal 500, Unimplemented 501). The body
differs: KFP 2.0.5 (grpc-gateway v1.16, runtime/errors.go DefaultHTTPError) writes
``{"error", "code", "message", "details"}``, KFP 2.16.1 (grpc-gateway v2.27.1,
DefaultHTTPErrorHandler) ``{"code", "message", "details"}``; the two multipart upload
routes write their own ``{"error_message", "error_details"}`` body
(``server/pipeline_upload_server.go``, writeErrorToResponse), at 2.0.5 with the
wrapped cause, at 2.16.1 with a fixed message per failure. Messages follow the Go wrap
chains, shortened where the chain holds database or Kubernetes details.

Rules stricter than the real server (each is a violation, noted where it is checked):
query parameters the generated client never sends (grpc-gateway ignores them), a
recurring run without a schedule (the server stores it; it then never fires), and at
2.0.5 a JSON body field the model does not have (grpc-gateway v1.16 drops it; 2.16.1
refuses it with 400 too). ``token``/``cookie`` stand for the cluster's authentication
in front of the server: a request without them is 401 on every route but healthz (the
upload handlers themselves answer an authorization failure with 400, see ``_upload``).
Injected failures (``fail_next``) answer the test's message on every route.
"""
