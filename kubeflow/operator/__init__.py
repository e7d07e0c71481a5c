"""Operating the pipeline on Kubeflow Pipelines: compile, version, run, schedule, follow.

Every call goes through ``kfp_server_api``'s generated client, the models of the API
server's own swagger, as ``kfp.Client`` makes them (``kfp/client/client.py``).
"""
