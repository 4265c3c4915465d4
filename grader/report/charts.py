"""The class report's charts (score histogram, pass rate per check) as PNGs; ASCII labels only."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # the backend must be chosen first


def histogram(path, bins, max_score):
    """Bar chart of the number of submissions per score bin."""
    figure, axis = plt.subplots(figsize=(7, 3.4))
    positions = range(len(bins))
    bars = axis.bar(positions, [b.count for b in bins], color="#4c72b0")
    axis.bar_label(bars, labels=[str(b.count) if b.count else "" for b in bins])
    axis.set_xticks(list(positions), [b.label for b in bins], rotation=35, ha="right", fontsize=8)
    axis.set_xlabel(f"score (max {max_score:g})")
    axis.set_ylabel("submissions")
    axis.set_title("Score distribution")
    axis.set_ylim(0, max([b.count for b in bins] + [1]) * 1.2)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


def pass_rates(path, rates):
    """Horizontal bars: the share of submissions passing each check (hidden checks hatched)."""
    names = list(rates)
    figure, axis = plt.subplots(figsize=(7, 0.32 * len(names) + 1.2))
    values = [100 * rates[n]["rate"] for n in names]
    bars = axis.barh(range(len(names)), values, color=["#55a868" if rates[n]["visible"] else "#8172b2" for n in names])
    for bar, name in zip(bars, names):
        if not rates[name]["visible"]:
            bar.set_hatch("//")
    axis.bar_label(bars, labels=[f"{rates[n]['passed']}/{rates[n]['total']}" for n in names], fontsize=8, padding=2)
    axis.set_yticks(range(len(names)), names, fontsize=8)
    axis.invert_yaxis()
    axis.set_xlim(0, 115)
    axis.set_xlabel("passed (%)   green = visible check, purple/hatched = hidden check")
    axis.set_title("Pass rate per check")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
