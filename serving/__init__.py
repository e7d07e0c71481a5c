"""The model as a model server answers it: the serving check and what it needs.

Its requests, its client, and a stand-in for TF Serving where its binary is not installed.

- ``sample``: the test rows the Evaluator scored, kept for the check to ask again.
- ``requests``: those rows in TF Serving's REST shapes (rows, columns, base64 tf.Examples).
- ``model_server``: starting a model server on a SavedModel and asking it over REST.
- ``check``: the serving check: every shape asked, answers compared, latency measured.
- ``standin_server``: TF Serving's REST API over a SavedModel, standard library and
  TensorFlow only, run in isolated mode.
"""
