"""Round robins on duplicate deals: ``scopa-sim tournament --players random,greedy,memory ...``.

Every pair of players plays the same packs twice with the seats swapped (duplicate play), so the
luck of the cards cancels out of their difference; from those pairs come per-pairing estimates
with paired intervals and ratings of every player. The parts:

- :mod:`.schedule`: the runs of a tournament (``plan``), playing them (``play``), its command.
- :mod:`.estimate`: per-pairing estimates, Holm p-values, variance reduction (``analyse``).
- :mod:`.ratings`: ratings (Davidson's model of wins and ties) with joint pack-bootstrap CIs
  and the model's goodness of fit (``fit_ratings``).
- :mod:`.swings`: the packs with the largest duplicate swings, replayed.
- :mod:`.report`: text, JSON and the Parquet summary; :mod:`.page`: the HTML page.
- :mod:`.pipeline`: ``run_tournament``, all of it in one call.
"""

from scopa_sim.tournament.estimate import (
    METRICS,
    Result,
    Row,
    analyse,
    load_pairing,
    pairing_values,
    per_unit,
)
from scopa_sim.tournament.page import forest_figure, heat_map_figure, page, write_html
from scopa_sim.tournament.pipeline import run_tournament
from scopa_sim.tournament.ratings import (
    BOOTSTRAP_REPLICATES,
    SCALES,
    UPPER_BOUND_LABEL,
    Fit,
    Rating,
    RatingFit,
    bradley_terry,
    davidson,
    davidson_against,
    fit_ratings,
    rate,
)
from scopa_sim.tournament.report import (
    RATINGS_TEXT,
    VARIANCE_REDUCTION_TEXT,
    design_text,
    estimate_text,
    format_table,
    pairing_table,
    rating_rows,
    ratings_text,
    to_json,
    write_summary,
)
from scopa_sim.tournament.schedule import (
    CHUNK_SIZE,
    Entrant,
    Pairing,
    Tournament,
    TournamentError,
    command_line,
    default_out,
    folder_name,
    lineup,
    plan,
    play,
)
from scopa_sim.tournament.swings import (
    SWING_TEXT,
    SWINGS_PER_PAIRING,
    Swing,
    largest_swings,
    replay_swing,
    swing_page,
    swing_rows,
    write_swings,
)

__all__ = [
    "BOOTSTRAP_REPLICATES",
    "CHUNK_SIZE",
    "METRICS",
    "RATINGS_TEXT",
    "SCALES",
    "SWINGS_PER_PAIRING",
    "SWING_TEXT",
    "UPPER_BOUND_LABEL",
    "VARIANCE_REDUCTION_TEXT",
    "Entrant",
    "Fit",
    "Pairing",
    "Rating",
    "RatingFit",
    "Result",
    "Row",
    "Swing",
    "Tournament",
    "TournamentError",
    "analyse",
    "bradley_terry",
    "command_line",
    "davidson",
    "davidson_against",
    "default_out",
    "design_text",
    "estimate_text",
    "fit_ratings",
    "folder_name",
    "forest_figure",
    "format_table",
    "heat_map_figure",
    "largest_swings",
    "lineup",
    "load_pairing",
    "page",
    "pairing_table",
    "pairing_values",
    "per_unit",
    "plan",
    "play",
    "rate",
    "rating_rows",
    "ratings_text",
    "replay_swing",
    "run_tournament",
    "swing_page",
    "swing_rows",
    "to_json",
    "write_html",
    "write_summary",
    "write_swings",
]
