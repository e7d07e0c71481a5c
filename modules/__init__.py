"""The Transform and Trainer module code: features, preprocessing, model, training, export."""
