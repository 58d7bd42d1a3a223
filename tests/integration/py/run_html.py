"""Read the run HTML report's structure for the integration tests:
the <svg> charts by data-view, their shaded bands, tick labels, marks."""
import re

def charts(html):
    """[(view, svg text)] in page order."""
    return [(m.group(1), m.group(0)) for m in
            re.finditer(r'<svg class="chart" data-view="([^"]*)".*?</svg>', html, re.S)]

def views(html, view):
    return [s for v, s in charts(html) if v == view]

def bands(svg):
    """[(kind, x0, x1, id or None)] of the shaded spans."""
    out = []
    for m in re.finditer(r'<rect class="band" data-band="([^"]*)" data-x0="([^"]*)" data-x1="([^"]*)"'
                         r'(?: data-id="(\d+)")?', svg):
        out.append((m.group(1), float(m.group(2)), float(m.group(3)),
                    int(m.group(4)) if m.group(4) else None))
    return out

def ylabels(svg):
    return re.findall(r'class="yl">([^<]*)<', svg)

def legend(svg):
    return re.findall(r'class="lg">([^<]*)<', svg)

def polylines(svg):
    return re.findall(r'<polyline [^>]*>', svg)

def value_labels(svg):
    return re.findall(r'<text class="pv"[^>]*>([^<]*)<', svg)

def dots(svg):
    return [(float(a), float(b)) for a, b in re.findall(r'<circle class="pt" cx="([^"]*)" cy="([^"]*)"', svg)]

NS = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}

def ns_value(label):
    m = re.fullmatch(r'([0-9.]+)(ns|us|ms|s)', label)
    assert m, "not a duration label: %r" % label
    return float(m.group(1)) * NS[m.group(2)]

def intervals(spans):
    """Merge [(x0, x1)] touching spans."""
    out = []
    for a, b in sorted(spans):
        if out and abs(out[-1][1] - a) < 1e-9:
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out
