#!/usr/bin/env python3
"""A replica of the assessment's rated experts, refitted in seconds from the corpus's
signals, for studying new signals and feature sets before a 20-minute `assess fit`.

It reads `fairsight assess rows` (one row a game side: kind, split, Elo tag, the rating
its z-scores are against, every signal). Like `assess fit` it fits one logistic
regression per kind of assistance (top engines, weaker engines, switched sides) against
the clean human sides of the train split, puts each on the clean humans' upper-tail
scale (out-of-fold logits: median, (95th percentile - median) / 1.645) and scores a side
by the largest of the three; unlike it, it has no random forest, no calibration and no
unrated variants (rated sides only). It prints per-side ROC AUCs on validation and test
by slice, all pairs and within 200-point bins of the rating each side is scored against
(where the rating alone gives 0.5: a signal that only gives the rating back gains there
nothing).

    fairsight assess rows --out rows.csv
    pip install scikit-learn pandas
    python3 scripts/experts-replica.py rows.csv
    python3 scripts/experts-replica.py rows.csv --other-makes   # session 73's study
    python3 scripts/experts-replica.py rows.csv --switched-makes   # session 75's study
    python3 scripts/experts-replica.py rows.csv --strength   # session 76's, on validation
    python3 scripts/experts-replica.py rows.csv --strength --test   # and once on test
    python3 scripts/experts-replica.py rows.csv --seen-make [--test]   # session 76's second
    python3 scripts/experts-replica.py rows0.csv rows1.csv rows2.csv --odds-makes [--test]
        # session 77's: the move-odds tables fitted with the switches of other makes
    python3 scripts/experts-replica.py rows1.csv rows3.csv --oof-odds [--test]
        # session 77's second: the train rows' move odds read out of fold
    python3 scripts/experts-replica.py rows.csv --bound
        # session 77's third: what any combination adds to switchOdds on switched sides

Studies of session 42 (`models/README.md`): `zGameLoss`, the whole game's win-% loss
(decided positions included, from `lateLoss` and `lateGain`) against a line of the
rating fitted on the train split's clean humans; an absolute strength (`topLines`)
beside the z-scores of the weaker-engine expert; and `zAsd` recentred by rating band.
"""

import sys
import warnings

import numpy as np
import pandas as pd
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

warnings.filterwarnings("ignore")

KINDS = {"top": "top-engine", "weak": "weak-engine", "switched": "switched"}
# The shipped model's rated experts' signals (models/assessment.json).
SHIPPED = {
    "top": ["classifier", "acpl", "matchRate", "competence", "stretch",
            "zMm", "zAsd", "zLateLoss", "zLateMatch", "zTopLines"],
    "weak": ["classifier", "stretch", "zMm", "zAsd", "zLateLoss", "zLateMatch", "zTopLines"],
    "switched": ["classifier", "acpl", "matchRate", "competence", "stretch",
                 "zMm", "zAsd", "zLateLoss", "zLateMatch", "zTopLines"],
}


def load(d):
    d = d[d.rating.notna() & (d.zMm.notna() | d.zLateLoss.notna())].reset_index(drop=True)
    # The whole game's loss: the first half's mean from lateGain = ln(1 + first) -
    # ln(1 + later), the two halves (of equal size, give or take a move) averaged.
    late = d.lateLoss.clip(lower=0)
    first = np.exp(d.lateGain + np.log1p(late)) - 1
    d["gameLoss"] = np.log1p(np.where(first.notna(), (first + late) / 2, late))
    h = (d.split == "train") & (d.kind == "human")
    slope, intercept = np.polyfit(d.rating[h], d.gameLoss[h], 1)
    sd = np.std(d.gameLoss[h] - (intercept + slope * d.rating[h]))
    # Positive: lost less than clean humans of the rating do.
    d["zGameLoss"] = -(d.gameLoss - (intercept + slope * d.rating)) / sd
    return d


def recentred(d, signals):
    """`signals` less the mean of the train split's clean humans of the side's rating
    band (Regan's table has no band under 1,645, and clean players rated under 1,400,
    nearly all online, sit near zAsd +2 against it)."""
    d = d.copy()
    band = pd.cut(d.rating, [0, 1200, 1400, 1600, 1800, 2000, 2200, 2400, 2600, 4000])
    h = (d.split == "train") & (d.kind == "human")
    for s in signals:
        d[s] = d[s] - band.map(d[h].groupby(band[h], observed=False)[s].mean()).astype(float)
    return d


def logit(p):
    p = np.clip(p, 1e-9, 1 - 1e-9)
    return np.log(p / (1 - p))


def model():
    return make_pipeline(SimpleImputer(strategy="median"), StandardScaler(),
                         LogisticRegression(max_iter=3000))


def expert(d, positive, feats):
    """One expert's z for every side, `positive` (a mask) against the train split's clean
    humans: out of fold on its train sides, on the clean humans' upper-tail scale."""
    tr = (d.split == "train") & ((d.kind == "human") | positive)
    x, y = d.loc[tr, feats].astype(float), positive[tr].astype(int)
    oof = np.zeros(len(x))
    for a, b in GroupKFold(5).split(x, y, d.loc[tr, "game"]):
        oof[b] = logit(model().fit(x.iloc[a], y.iloc[a]).predict_proba(x.iloc[b])[:, 1])
    human = oof[(y == 0).values]
    centre = np.median(human)
    scale = (np.percentile(human, 95) - centre) / 1.645
    score = pd.Series((logit(model().fit(x, y).predict_proba(d[feats].astype(float))[:, 1])
                       - centre) / scale, index=d.index)
    score[tr[tr].index] = (oof - centre) / scale
    return score


def experts(d, features):
    """Each expert's z for every side: out of fold on its train sides."""
    return pd.DataFrame({k: expert(d, d.kind == KINDS[k], feats) for k, feats in features.items()})


def within(d, pos, score, split):
    """AUC of `pos` against clean humans, pairs compared within 200-point rating bins."""
    t = d.split == split
    h, p = t & (d.kind == "human"), t & pos
    bins = d.rating // 200
    num = den = 0.0
    for b in set(bins[p]):
        pp, hh = p & (bins == b), h & (bins == b)
        if pp.sum() and hh.sum():
            m = pp | hh
            w = pp.sum() * hh.sum()
            num += roc_auc_score(pp[m].astype(int), score[m]) * w
            den += w
    return num / den


def report(d, score, label):
    slices = {
        "top": d.kind == "top-engine",
        "weak": (d.kind == "weak-engine") & (d.elo <= 2600),
        "switched": d.kind == "switched",
    }
    for split in ["validation", "test"]:
        t = d.split == split
        h = t & (d.kind == "human")
        cells = []
        for name, pos in slices.items():
            m = h | (t & pos)
            cells.append(f"{name} {roc_auc_score((t & pos)[m].astype(int), score[m]):.3f}"
                         f" (bins {within(d, pos, score, split):.3f})")
        print(f"{label:40s} {split:10s} " + "  ".join(cells))


# The shipped model's rated experts' signals since session 58 (models/assessment.json).
RATED = {
    "top": ["classifier", "acpl", "matchRate", "competence", "stretch", "zMm", "zAsd",
            "zLateLoss", "zLateMatch", "zTopLines", "zPositionLoss", "lateOdds"],
    "weak": ["classifier", "stretch", "zMm", "zAsd", "zLateLoss", "zLateMatch", "zTopLines",
             "lateGain", "zSeenLines", "zPositionLoss", "lateOdds"],
    "switched": ["classifier", "acpl", "matchRate", "competence", "stretch", "zMm", "zAsd",
                 "zLateLoss", "zLateMatch", "zTopLines", "zPositionLoss", "lateOdds",
                 "switchOdds"],
}


def other_makes(d):
    """Session 73: an expert of its own for the engines of other makes' train games
    (`othermakes-train`, `othermakes-train-long`) beside the three, which are fitted
    without them as shipped; read on the held-out makes (`othermakes-test`) and on the
    clean sides' largest z, `look closer` replayed at the 99th percentile of the clean
    validation sides' largest z."""
    src = d.game.str.split("/").str[0]
    om = src.str.startswith("othermakes")
    om_train = src.isin(["othermakes-train", "othermakes-train-long"])
    z = pd.DataFrame({
        "top": expert(d, d.kind == "top-engine", RATED["top"]),
        "weak": expert(d, (d.kind == "weak-engine") & ~om, RATED["weak"]),
        "switched": expert(d, d.kind == "switched", RATED["switched"]),
    })
    variants = {
        "three experts (as shipped)": z.max(axis=1),
        "+ other makes' expert, weaker expert's signals":
            pd.concat([z, expert(d, om_train, RATED["weak"])], axis=1).max(axis=1),
        "+ other makes' expert, top expert's signals":
            pd.concat([z, expert(d, om_train, RATED["top"])], axis=1).max(axis=1),
        "weaker expert on self-play and other makes":
            pd.concat([z[["top", "switched"]],
                       expert(d, d.kind == "weak-engine", RATED["weak"])], axis=1).max(axis=1),
    }
    t = d.split == "test"
    slices = {"top": t & (d.kind == "top-engine"),
              "weaker (self-play)": t & (d.kind == "weak-engine") & ~om,
              "switched": t & (d.kind == "switched"),
              "held-out makes": t & (src == "othermakes-test")}
    replayed(d, variants, slices)


def replayed(d, variants, slices):
    """Each variant's test AUC on each slice against the clean test sides, and `look
    closer` replayed at the 99th percentile of the clean validation sides' largest z."""
    t = d.split == "test"
    clean = t & (d.kind == "human")
    for name, s in variants.items():
        bar = np.percentile(s[(d.split == "validation") & (d.kind == "human")], 99)
        aucs = "  ".join(f"{k} {roc_auc_score(p[clean | p].astype(int), s[clean | p]):.3f}"
                         for k, p in slices.items())
        over = "  ".join(f"{k} {int((s[p] > bar).sum())}/{int(p.sum())}"
                         for k, p in {"clean": clean, **slices}.items())
        q = np.percentile(s[clean], [50, 95, 99])
        print(f"{name}\n  test AUC: {aucs}\n  clean largest z 50/95/99th: "
              f"{q[0]:.2f} / {q[1]:.2f} / {q[2]:.2f}; over the bar {bar:.2f}: {over}")


# Switched games whose assisted side is an engine of another make than the judge's, in
# the train split (session 75; the train group's makes), and the held-out one (Ethereal).
SWITCHED_MAKES_TRAIN = ["switched-twic-toga", "switched-twic-gnuchess"]
SWITCHED_MAKES_TEST = "switched-twic-ethereal"


def with_and_without(d, new, what):
    """The three experts, the switched one fitted without the switched sides `new` and
    with them (the other two as shipped: the weaker one without the whole games of other
    makes), and the switched expert alone each way; prints the train sides of each."""
    src = d.game.str.split("/").str[0]
    om = src.str.startswith("othermakes")
    switched = d.kind == "switched"
    top = expert(d, d.kind == "top-engine", RATED["top"])
    weak = expert(d, (d.kind == "weak-engine") & ~om, RATED["weak"])
    without = expert(d, switched & ~new, RATED["switched"])
    with_new = expert(d, switched, RATED["switched"])
    tr = d.split == "train"
    print(f"train switched sides: {int((switched & ~new & tr).sum())} without, "
          f"{int((switched & tr).sum())} with {what}")
    return {
        f"three experts, the switched one without {what}":
            pd.concat([top, weak, without], axis=1).max(axis=1),
        "three experts, the switched one with them":
            pd.concat([top, weak, with_new], axis=1).max(axis=1),
        "the switched expert alone, without": without,
        "the switched expert alone, with": with_new,
    }


def switched_makes(d):
    """Session 75: the switched expert fitted with and without the train split's switches
    to engines of other makes; read on the held-out switches to Ethereal, on the test
    split's switches to Stockfish and on the clean sides' largest z."""
    src = d.game.str.split("/").str[0]
    om = src.str.startswith("othermakes")
    switched = d.kind == "switched"
    t = d.split == "test"
    variants = with_and_without(d, src.isin(SWITCHED_MAKES_TRAIN), "the other makes' switches")
    replayed(d, variants, {
        "switched to Ethereal": t & (src == SWITCHED_MAKES_TEST),
        "switched to Stockfish": t & switched & (src != SWITCHED_MAKES_TEST),
        "top": t & (d.kind == "top-engine"),
        "weaker (self-play)": t & (d.kind == "weak-engine") & ~om,
    })


# Session 76: switched experts that read how much the moves lose on the judge, not how
# often they are its first line (which a helper of another make than the judge's matches
# less often, at equal loss).
MATCH = ["matchRate", "zLateMatch", "zTopLines"]
LOSS = ["acpl", "competence", "stretch", "zAsd", "zLateLoss", "zPositionLoss"]


def strength(d, split):
    """Session 76: the switched expert with and without the judge's-first-line match
    signals, loss-only, and a fourth, loss-only expert beside the three; read on `split`
    (validation to choose, test once): switches to Ethereal (the validation set or the
    test set), switches to Stockfish, top and weaker engines, each against the clean
    sides of the split, and the clean sides' largest z."""
    src = d.game.str.split("/").str[0]
    om = src.str.startswith("othermakes")
    switched = d.kind == "switched"
    top = expert(d, d.kind == "top-engine", RATED["top"])
    weak = expert(d, (d.kind == "weak-engine") & ~om, RATED["weak"])
    three = lambda s: pd.concat([top, weak, s], axis=1).max(axis=1)  # noqa: E731
    shipped = expert(d, switched, RATED["switched"])
    no_match = expert(d, switched, [f for f in RATED["switched"] if f not in MATCH])
    loss = expert(d, switched, LOSS)
    variants = {
        "S0 the three experts as shipped": three(shipped),
        "S1 switched expert without matchRate, zLateMatch, zTopLines": three(no_match),
        "S2 switched expert on losses only": three(loss),
        "S3 the three as shipped and a fourth, on losses only":
            pd.concat([top, weak, shipped, loss], axis=1).max(axis=1),
        "S0's switched expert alone": shipped,
        "S1's switched expert alone": no_match,
        "S2's switched expert alone": loss,
    }
    read_on(d, split, variants)


def read_on(d, split, variants):
    """Each variant's AUC on `split` for the switches to Ethereal (its validation or test
    set), the other switches (to Stockfish), top and weaker engines (self-play), each
    against the split's clean sides, and the clean sides' largest z."""
    src = d.game.str.split("/").str[0]
    switched = d.kind == "switched"
    t = d.split == split
    clean = t & (d.kind == "human")
    eth = src.isin(["switched-twic-ethereal", "switched-twic-ethereal-val"])
    slices = {"Ethereal": t & switched & eth, "Stockfish": t & switched & ~eth,
              "top": t & (d.kind == "top-engine"),
              "weaker": t & (d.kind == "weak-engine") & ~src.str.startswith("othermakes")}
    print(f"{split}: " + ", ".join(f"{k} {int(p.sum())}" for k, p in
                                    {"clean": clean, **slices}.items()) + " sides")
    for name, s in variants.items():
        aucs = "  ".join(f"{k} {roc_auc_score(p[clean | p].astype(int), s[clean | p]):.3f}"
                         for k, p in slices.items())
        q = np.percentile(s[clean], [50, 95, 99])
        print(f"{name}\n  AUC: {aucs}\n  clean largest z 50/95/99th: "
              f"{q[0]:.2f} / {q[1]:.2f} / {q[2]:.2f}")


SEEN_MAKE = "switched-twic-ethereal-train"


def seen_make(d, split):
    """Session 76: the switched expert fitted with and without the train split's switches
    to Ethereal (`switched-twic-ethereal-train`), the make of the held-out switches; read
    on `split` as `strength` reads it."""
    new = d.game.str.split("/").str[0] == SEEN_MAKE
    read_on(d, split, with_and_without(d, new, "the switches to Ethereal"))


# Session 77: the train split's switches to engines of other makes than the judge's.
OTHER_MAKES_SWITCHED = SWITCHED_MAKES_TRAIN + [SEEN_MAKE]


def odds_makes(paths, split):
    """Session 77: the move-odds tables (`lateOdds`, `switchOdds`) as shipped (rows of
    `assess rows`), fitted again on today's train split with the switches to Stockfish
    only (`--refit-odds --odds-without-source` each other make's source), and with the
    switches of other makes too (`--refit-odds`); the switched expert fitted on the
    switches the tables saw (C2 also without the other makes, to tell the tables' part
    from the expert's); read on `split` as `strength` reads it."""
    c0, c1, c2 = (pd.read_csv(p) for p in paths)
    rated = [c[c.rating.notna()].reset_index(drop=True) for c in (c0, c1, c2)]
    for c in rated[1:]:
        assert (c.game == rated[0].game).all() and (c.kind == rated[0].kind).all()
    d = rated[0]
    src = d.game.str.split("/").str[0]
    om = src.str.startswith("othermakes")
    other = src.isin(OTHER_MAKES_SWITCHED)
    switched = d.kind == "switched"
    variants = {}
    for name, rows, without in [
        ("C0 shipped tables, switched expert without the other makes", rated[0], True),
        ("C1 tables refitted, switches to Stockfish only", rated[1], True),
        ("C2 tables refitted with the other makes, expert with them", rated[2], False),
        ("C2' tables refitted with the other makes, expert without them", rated[2], True),
    ]:
        top = expert(rows, d.kind == "top-engine", RATED["top"])
        weak = expert(rows, (d.kind == "weak-engine") & ~om, RATED["weak"])
        sw = expert(rows, switched & ~other if without else switched, RATED["switched"])
        variants[name] = pd.concat([top, weak, sw], axis=1).max(axis=1)
        variants[name[:3].strip() + ": the switched expert alone"] = sw
        variants[name[:3].strip() + ": switchOdds alone"] = rows.switchOdds.fillna(-9)
    read_on(d, split, variants)


def oof_odds(paths, split):
    """Session 77's second: the experts fitted on train rows whose move odds (`lateOdds`,
    `switchOdds`, `switchOddsAll`) were read by tables fitted on their own moves (the
    first file, `assess rows --refit-odds --odds-without-source` the other makes'
    switches) or by tables fitted without their fold (the second, the same and
    `--oof-odds`); the switched expert without the other makes' switches (C0's). Read on
    `split` as `strength` reads it, and each combination against `switchOdds` alone on the
    switches to Stockfish (all, and those with clocks)."""
    rated = [c[c.rating.notna()].reset_index(drop=True) for c in map(pd.read_csv, paths)]
    assert (rated[1].game == rated[0].game).all() and (rated[1].kind == rated[0].kind).all()
    d = rated[0]
    src = d.game.str.split("/").str[0]
    om = src.str.startswith("othermakes")
    switched = d.kind == "switched"
    sw_train = switched & ~src.isin(OTHER_MAKES_SWITCHED)
    eth = src.isin(["switched-twic-ethereal", "switched-twic-ethereal-val"])
    t = d.split == split
    clean = t & (d.kind == "human")
    clocked = d.clocks.astype(str).str.lower() == "true"
    variants = {}
    for name, rows in [("R0 odds in sample", rated[0]), ("R1 odds out of fold", rated[1])]:
        top = expert(rows, d.kind == "top-engine", RATED["top"])
        weak = expert(rows, (d.kind == "weak-engine") & ~om, RATED["weak"])
        sw = expert(rows, sw_train, RATED["switched"])
        largest = pd.concat([top, weak, sw], axis=1).max(axis=1)
        variants[name + ": largest z"] = largest
        variants[name + ": the switched expert alone"] = sw
        # `switchOdds` itself is read the same way in both (validation and test rows).
        odds = rows.switchOdds.fillna(-9)
        for what, p in [("Stockfish", t & switched & ~eth),
                        ("Stockfish, clocks", t & switched & ~eth & clocked)]:
            m = (clean & clocked if what.endswith("clocks") else clean) | p
            y = p[m].astype(int)
            a = roc_auc_score(y, largest[m])
            b = roc_auc_score(y, sw[m])
            o = roc_auc_score(y, odds[m])
            print(f"{name}, switched to {what} ({int(p.sum())} / {int((m & ~p).sum())}): "
                  f"largest z {a:.3f}, switched expert {b:.3f}, switchOdds {o:.3f}: "
                  f"largest z - switchOdds {a - o:+.3f}")
    read_on(d, split, variants)


# Every signal a rated game side has (`assess rows`' columns after `clocks`).
ALL_SIGNALS = ["classifier", "positiveRate", "acpl", "accuracy", "matchRate", "competence",
               "stretch", "lateLoss", "lateMatch", "zMm", "zEv", "zAsd", "zLateLoss",
               "zLateMatch", "timeCv", "windowCv", "fastShare", "difficultyCorrelation",
               "topLines", "zTopLines", "lateGain", "seenLines", "zSeenLines",
               "zPositionLoss", "lateOdds", "switchOdds"]


def bound(d):
    """Session 77's third: how much any combination of the signals adds to `switchOdds`
    alone on the switches to Stockfish against clean sides (rated), fitted on the train
    split's switches to Stockfish and clean sides, read on validation and test with a
    paired bootstrap (1,000 resamples of the sides) of the difference. Descriptive:
    nothing is chosen on it."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    src = d.game.str.split("/").str[0]
    stockfish = (d.kind == "switched") & ~src.isin(OTHER_MAKES_SWITCHED) & \
        ~src.isin(["switched-twic-ethereal", "switched-twic-ethereal-val"])
    human = d.kind == "human"
    tr = (d.split == "train") & (stockfish | human)
    y = stockfish[tr].astype(int)
    fits = {
        "logistic, the switched expert's signals": (model(), RATED["switched"]),
        "logistic, every signal": (model(), ALL_SIGNALS),
        "boosted trees, every signal": (HistGradientBoostingClassifier(random_state=2026),
                                        ALL_SIGNALS),
        "boosted trees, the switched expert's signals":
            (HistGradientBoostingClassifier(random_state=2026), RATED["switched"]),
    }
    scores = {}
    for name, (m, feats) in fits.items():
        m.fit(d.loc[tr, feats].astype(float), y)
        scores[name] = pd.Series(m.predict_proba(d[feats].astype(float))[:, 1], index=d.index)
    rng = np.random.default_rng(2026)
    clocked = d.clocks.astype(str).str.lower() == "true"
    for split in ["validation", "test"]:
        t = d.split == split
        for what, among in [("all", t), ("with clocks", t & clocked)]:
            pos, neg = np.flatnonzero(among & stockfish), np.flatnonzero(among & human)
            odds = d.switchOdds.fillna(-9).to_numpy()
            base = roc_auc_score(np.r_[np.ones(len(pos)), np.zeros(len(neg))],
                                 np.r_[odds[pos], odds[neg]])
            print(f"{split}, switched to Stockfish {what} ({len(pos)} / {len(neg)}): "
                  f"switchOdds alone {base:.3f}")
            for name, sc in scores.items():
                sc = sc.to_numpy()
                a = roc_auc_score(np.r_[np.ones(len(pos)), np.zeros(len(neg))],
                                  np.r_[sc[pos], sc[neg]])
                diffs = []
                for _ in range(1000):
                    bp, bn = rng.choice(pos, len(pos)), rng.choice(neg, len(neg))
                    yy = np.r_[np.ones(len(bp)), np.zeros(len(bn))]
                    diffs.append(roc_auc_score(yy, np.r_[sc[bp], sc[bn]])
                                 - roc_auc_score(yy, np.r_[odds[bp], odds[bn]]))
                lo, hi = np.percentile(diffs, [2.5, 97.5])
                print(f"  {name}: {a:.3f}, {a - base:+.3f} ({lo:+.3f} to {hi:+.3f})")


def main():
    flags = [a for a in sys.argv[1:] if a.startswith("--")]
    paths = [a for a in sys.argv[1:] if not a.startswith("--")]
    if "--oof-odds" in flags:
        return oof_odds(paths, "test" if "--test" in flags else "validation")
    if "--odds-makes" in flags:
        return odds_makes(paths, "test" if "--test" in flags else "validation")
    d = pd.read_csv(paths[0] if paths else "rows.csv")
    # The train split's switches to Ethereal (session 76) are read only by the study made
    # for them: every other study reads the rows as it did before they were stored.
    if "--seen-make" not in flags:
        d = d[d.game.str.split("/").str[0] != SEEN_MAKE]
    rated = d[d.rating.notna()].reset_index(drop=True)
    split = "test" if "--test" in flags else "validation"
    if "--bound" in flags:
        return bound(rated)
    if "--seen-make" in flags:
        return seen_make(rated, split)
    if "--strength" in flags:
        return strength(rated, split)
    if "--switched-makes" in flags:
        return switched_makes(rated)
    if "--other-makes" in flags:
        return other_makes(rated)
    d = load(d)
    for name, features in [
        ("shipped signals", SHIPPED),
        ("+ zGameLoss (weaker, switched)", {**SHIPPED,
                                            "weak": SHIPPED["weak"] + ["zGameLoss"],
                                            "switched": SHIPPED["switched"] + ["zGameLoss"]}),
        # An absolute strength beside its z-score gives the rating back (the design
        # keeps it out of the weaker expert): all pairs gain, pairs within bins do not.
        ("+ topLines (weaker)", {**SHIPPED, "weak": SHIPPED["weak"] + ["topLines"]}),
    ]:
        z = experts(d, features)
        report(d, z.max(axis=1), name + ": largest z")
        report(d, z["weak"], name + ": weaker expert alone")
        report(d, z["switched"], name + ": switched expert alone")
    # zAsd recentred on the clean humans of its rating band.
    r = recentred(d, ["zAsd"])
    z = experts(r, SHIPPED)
    report(r, z.max(axis=1), "zAsd recentred by band: largest z")
    report(r, z["weak"], "zAsd recentred by band: weaker expert alone")
    report(r, -r.zAsd.fillna(0), "zAsd recentred by band alone")
    # Single signals, each side against clean humans, read the engine-like way.
    for signal, direction in [("zGameLoss", 1), ("zLateLoss", -1), ("zAsd", -1),
                              ("zTopLines", 1), ("seenLines", 1)]:
        report(d, direction * d[signal].fillna(d[signal].median()), signal + " alone")


if __name__ == "__main__":
    main()
