"""The options both runners take, and the config fields they set.

The dataset, training steps, hyperparameters, tuning and the console's verbosity
mean the same locally and on Kubeflow; each runner adds only where things run.
"""

from __future__ import annotations

import argparse
from typing import Any

import datasets
from data_layout import spans
from modules.hparams import parse_pairs
from pipeline_def.config import PipelineConfig
from pipeline_ops.cli.scaffold import add_dataset_option


def span_value(text: str) -> int:
    """--span's value: a span number, or "latest" (the newest span of the data root)."""
    try:
        return spans.parse_span(text)
    except spans.SpanError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def add_run_options(parser: argparse.ArgumentParser, dataset: str = datasets.DEFAULT) -> None:
    """The options of a run: data, span and window, pushing and warm start, training, console."""
    # In this order: the order --help lists them in.
    _add_data_options(parser, dataset)
    _add_model_history_options(parser)
    _add_training_options(parser)
    _add_tuning_options(parser)
    parser.add_argument("--verbose", action="store_true", help="also show the TFX/TF/Beam log")


def _add_data_options(parser: argparse.ArgumentParser, dataset: str) -> None:
    """What a run reads: the dataset, the span, and the window of spans it trains on."""
    add_dataset_option(parser, dataset)
    parser.add_argument(
        "--span",
        type=span_value,
        default=PipelineConfig.span,
        metavar="N|latest",
        help="the span folder (span-<N>/) of the data root to process (default: the newest)",
    )
    parser.add_argument(
        "--window",
        type=int,
        default=PipelineConfig.window,
        metavar="K",
        help="train on the newest K spans up to the run's span (default: %(default)s)",
    )


def _add_model_history_options(parser: argparse.ArgumentParser) -> None:
    """How a run relates to the serving model: pushing over it, starting from its weights."""
    parser.add_argument(
        "--allow-older",
        action="store_true",
        help="push a blessed model trained on an older span than the serving model's",
    )
    parser.add_argument(
        "--cold-start",
        action="store_true",
        help="train from scratch, not from the weights of a serving model of older spans",
    )


def _add_training_options(parser: argparse.ArgumentParser) -> None:
    """How a run encodes and trains, and the bound its model must reach."""
    parser.add_argument(
        "--analyzer-cache",
        action="store_true",
        help="Transform analyzes the window span by span, reusing earlier runs' analysis "
        "(pays off only where analysis outweighs the cache's own Beam stages)",
    )
    parser.add_argument("--train-steps", type=int, default=PipelineConfig.train_steps)
    parser.add_argument(
        "--min-auc",
        type=float,
        default=PipelineConfig.min_auc,
        help="the test AUC a model must reach to be blessed (default: the dataset's bound)",
    )
    parser.add_argument(
        "--hparam",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override a hyperparameter (modules/hparams.py), VALUE in JSON, e.g. "
        "dropout=0.2 or hidden_units=[64,32]; repeat the flag for several",
    )


def _add_tuning_options(parser: argparse.ArgumentParser) -> None:
    """Whether a run searches hyperparameters before training, and for how long."""
    parser.add_argument(
        "--tune",
        action="store_true",
        help="search hyperparameters (modules/hparams.py SEARCH_SPACE) before training, "
        "and train with the best values found on the validation split",
    )
    parser.add_argument(
        "--tune-trials",
        type=int,
        default=PipelineConfig.tune_trials,
        help="at most this many trials",
    )
    parser.add_argument(
        "--tune-minutes",
        type=float,
        default=PipelineConfig.tune_minutes,
        help="no trial starts after this many minutes of search",
    )


def run_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The PipelineConfig fields these options set; ValueError naming a malformed --hparam.

    Names and types are checked where they are applied, by PipelineConfig.
    """
    return {
        "dataset": args.dataset,
        "span": args.span,
        "window": args.window,
        "allow_older": args.allow_older,
        "warm_start": not args.cold_start,
        "transform_cache": args.analyzer_cache,
        "train_steps": args.train_steps,
        "min_auc": args.min_auc,
        "hparam_overrides": tuple(parse_pairs(args.hparam).items()),
        "tune": args.tune,
        "tune_trials": args.tune_trials,
        "tune_minutes": args.tune_minutes,
    }
