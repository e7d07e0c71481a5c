"""Where the pipeline's data lies and how it is laid out, read and written by steps and tools alike.

The data root's spans and CSV files, the encoded spans and Transform's analyzer cache
kept between runs, the push destination, the split names and the custom properties
the components record on their artifacts. No TFX component lives here: the components
(``components/``) and the operator tools (``pipeline_ops/``) both import these.
"""
