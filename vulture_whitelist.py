"""Names that frameworks use by name, so vulture (``make lint``) sees no use of them here.

vulture matches by name alone: each line keeps every definition of that name. Only what
a framework reads or calls belongs here; anything else vulture reports is dead code.
"""

from vulture.whitelist_utils import Whitelist

_ = Whitelist()

# TFX: a custom component class declares its spec and driver; BaseComponent reads them.
_.SPEC_CLASS
_.DRIVER_CLASS
# TFX: an artifact type's name in ML-Metadata.
_.TYPE_NAME
# Keras 2: Model.fit and Model.evaluate call these overrides.
_.train_step
_.test_step
# Beam: applying a PTransform calls its expand.
_.expand
# Keras 2: fit calls a callback's hooks.
_.on_epoch_begin
# KerasTuner: the tuner's search calls these overrides.
_.run_trial
_.search_space_summary
_.results_summary
# Protocol-buffer fields, set for the library that reads the message (TrainArgs,
# MLMD's SQLite config, a schema's float domain, a TFMA slice key).
_.num_steps
_.connection_mode
_.disallow_nan
_.disallow_inf
_.bytes_value
# tf.data: an Options attribute the dataset reads when distributed.
_.auto_shard_policy
# kfp_server_api: the client calls the Configuration's hook before each request.
_.refresh_api_key_hook
# pytest: a module's marks.
_.pytestmark
# shlex: the lexer's setting, read by its iterator.
_.whitespace_split
# selenium: ChromeOptions' browser binary.
_.binary_location
# http.server: the request handler's methods and the server's settings, used by name.
_.do_GET
_.do_POST
_.do_PUT
_.do_PATCH
_.do_DELETE
_.log_message
_.protocol_version
_.daemon_threads
# The fake KFP API's model fields, sent to the client as JSON by name.
_.state_history
_.updated_at
# TFX's fileio: a filesystem plugin declares its schemes, takes walk's onerror, and its
# stat answers a length and whether the path is a folder (kubeflow/step/s3_fileio.py).
_.SUPPORTED_SCHEMES
_.onerror
_.is_directory
# Beam: the runner a pipeline that names none runs on (startup/beam_local.py).
_.DEFAULT_RUNNER
# A timer callback Beam calls by its @on_timer (tests/startup/test_dofn_specs.py).
_.ring
# pytest: conftest hooks, called by name.
_.pytest_collection_modifyitems
_.pytest_configure
_.pytest_xdist_make_scheduler
_.pytest_runtest_logreport
_.pytest_terminal_summary
