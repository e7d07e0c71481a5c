"""What a Kubeflow step's container runs around its executor; the image holds this package."""
