"""The derivation as a web page (issue 17, section 6): ``eq.html()``, ``_repr_html_`` and
``robodyn derive MODEL --steps --format html``.

The page is one file that reads without a network or a script: MathML translated from
robodyn's LaTeX, the arm drawn in SVG from the forward kinematics, a table of contents by
step, folding sections. Model text is escaped; a headless Chromium, where installed,
renders every built-in's page.
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import numpy as np
import pytest
import sympy as sp

import robodyn as rd
from conftest import GOOD_MODEL, SYMBOLIC_MODELS, write_model
from robodyn.cli import main
from robodyn.symbolic import derive
from robodyn.symbolic.equations import Equations
from robodyn.symbolic.printing.figure import arm_svg
from robodyn.symbolic.printing.mathml import MAX_DEPTH, tex_to_mathml

M = "{http://www.w3.org/1998/Math/MathML}"


def _tree(tex: str, display: bool = True) -> ET.Element:
    """The ``<math>`` element of ``tex`` as an XML tree (it must be well-formed)."""
    markup = tex_to_mathml(tex, display).replace("<math", f'<math xmlns="{M[1:-1]}"', 1)
    return ET.fromstring(markup.replace("&#x2061;", "\u2061"))


def _tags(node: ET.Element) -> list[str]:
    return [child.tag.removeprefix(M) for child in node]


def _text(node: ET.Element) -> str:
    return "".join(node.itertext())


# -- LaTeX to MathML -------------------------------------------------------------------
def test_fractions_scripts_and_accents_have_the_structure_of_the_tex():
    root = _tree(r"\frac{\partial L}{\partial \dot q_{1}}")
    frac = root[0]
    assert frac.tag == M + "mfrac" and len(frac) == 2
    num, den = frac
    assert [_text(c) for c in num] == ["∂", "L"]
    sub = den[1]  # \dot q_{1}: the subscript on the accented q
    assert sub.tag == M + "msub" and sub[0].tag == M + "mover"
    assert _text(sub[0]) == "q˙" and sub[0].get("accent") == "true" and _text(sub[1]) == "1"
    # sub- and superscript in either order, on one base
    for tex in (r"J_{P}^{(1)T}", r"J^{(1)T}_{P}"):
        node = _tree(tex)[0]
        assert node.tag == M + "msubsup"
        assert [_text(c) for c in node] == ["J", "P", "(1)T"]
    # \tfrac12 reads one digit per argument, as TeX does
    half = _tree(r"\tfrac12")[0]
    assert half.tag == M + "mstyle" and [_text(c) for c in half[0]] == ["1", "2"]
    # a name of several letters is one identifier, a number one mn
    row = _tree(r"Ixx_{1} + 12.5 m_{2}")[0]
    assert _tags(row) == ["msub", "mo", "mn", "msub"]
    assert _text(row[0][0]) == "Ixx" and _text(row[2]) == "12.5" and _text(row[1]) == "+"


def test_matrices_align_blocks_and_functions():
    m = _tree(r"\left[\begin{matrix}- s_{1} & 0\\1 & \frac{\pi}{2}\end{matrix}\right]")[0]
    assert _tags(m)[0] == "mo" and _text(m[0]) == "[" and _text(m[-1]) == "]"
    table = m[1][0] if m[1].tag == M + "mrow" else m[1]
    assert table.tag == M + "mtable"
    assert [len(row) for row in table] == [2, 2]
    assert _text(table[0][0]) == "−s1" and table[1][1][0].tag == M + "mfrac"
    block = _tree("\\begin{align*}\nM &= a \\\\\n&\\quad + b\n\\end{align*}")[0]
    rows = block[0]
    assert rows.tag == M + "mtable" and rows.get("class") == "align" and len(rows) == 2
    assert [c.get("class") for c in rows[0]] == ["r", "l"]
    assert _text(rows[0][0]) == "M" and _text(rows[0][1]) == "=a"
    # sin, and \cos_{12} (shorthand): the script on the name, then the application
    row = _tree(r"\cos_{12} \sin{\left(\theta_{1} \right)}")[0]
    assert _tags(row)[:3] == ["msub", "mo", "mi"]
    assert _text(row[0]) == "cos12" and row[1].text == "\u2061" and _text(row[2]) == "sin"


def test_text_and_unknown_commands_are_escaped_text_never_markup():
    root = _tree(r"\text{<script>alert(1)</script> \& \textbackslash{}} + \foo")
    mtext = root[0][0]
    assert mtext.tag == M + "mtext" and mtext.text == "<script>alert(1)</script> & \\"
    assert _text(root[0][-1]) == "\\foo" and root[0][-1].get("class") == "tex-unknown"
    markup = tex_to_mathml(r"\text{</math><script>}")
    assert "<script" not in markup and "&lt;/math&gt;&lt;script&gt;" in markup


@pytest.mark.parametrize("tex", [
    "{a", "a}", r"\frac{a}", r"\left( a", r"a \right)", r"\begin{matrix} a", "a & b",
    r"\begin{foo} a \end{foo}", "x^", r"a_1_2", "\\", "{" * (MAX_DEPTH + 50) + "}" *
    (MAX_DEPTH + 50), r"\sqrt[3{x}", "<&>\"'",
])
def test_tex_that_does_not_parse_is_shown_whole_as_text(tex):
    root = _tree(tex)  # well-formed whatever the input
    if tex == "<&>\"'":
        assert _text(root) == "<&>\"'"  # characters, as operators
        return
    assert len(root) == 1 and root[0].tag == M + "mtext"
    assert root[0].text == tex and root[0].get("class") == "tex-source"


def test_any_string_gives_well_formed_mathml_at_once():
    """Random strings of TeX's pieces (braces, scripts, environments, text, control
    characters, markup): each gives well-formed MathML, none an exception; inputs that
    would nest without end are text at once."""
    import random
    import time

    pieces = ["a", "1", ".", "{", "}", "^", "_", "&", "\\\\", "\\", "\\frac", "\\left(",
              "\\right)", "\\left.", "\\begin{matrix}", "\\end{matrix}", "\\begin{align*}",
              "\\end{align*}", "\\text{", "\\sqrt", "[", "]", "\\dot", "\\mathbf", "\\mathrm{",
              "\\sin", "\\cos_", "\\operatorname{", " ", "<", ">", "&amp;", '"', "'", "\\foo",
              "\\bigl(", "\\,", "-", "\\textbackslash{}", "\\begin{array}{cc}", "%", "#", "$",
              "~", "\x00", "\u202e", "é", "</math>", "<script>"]
    rng = random.Random(17)
    for _ in range(1500):
        tex = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 30)))
        root = _tree(tex)
        assert "script" not in {n.tag.removeprefix(M) for n in root.iter()}
    start = time.perf_counter()
    for tex in ("\\dot" * 5000 + "x", "{" * 100_000, "a^" * 3000 + "b", "\\frac" * 3000):
        assert _tree(tex)[0].get("class") == "tex-source"
    assert time.perf_counter() - start < 2


# -- the page --------------------------------------------------------------------------
class _Page(HTMLParser):
    """The tags, ids, links and text of a page."""

    def __init__(self):
        super().__init__()
        self.tags: list[str] = []
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.attrs: list[tuple[str, str, str]] = []
        self.text: list[str] = []
        self.title = ""
        self._in_title = False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for k, v in attrs:
            self.attrs.append((tag, k, v or ""))
            if k == "id":
                self.ids.add(v)
            if k == "href":
                self.links.append(v)
        self._in_title = tag == "title"

    def handle_endtag(self, tag):
        self._in_title = False

    def handle_data(self, data):
        self.text.append(data)
        if self._in_title:
            self.title += data


def _parsed(page: str) -> _Page:
    p = _Page()
    p.feed(page)
    p.close()
    return p


@pytest.fixture(scope="module")
def rp_arm_page():
    eq = rd.load("rp-arm").equations()
    return eq, eq.html(steps=True, description=rd.load("rp-arm").description)


def test_the_page_is_one_file_with_no_script_and_nothing_fetched(rp_arm_page):
    _, page = rp_arm_page
    parsed = _parsed(page)
    assert page.startswith("<!DOCTYPE html>") and "script" not in parsed.tags
    assert not [a for a in parsed.attrs if a[1].startswith("on")]  # no event handlers
    assert not [a for a in parsed.attrs if a[1] in ("src", "srcset", "data", "action")]
    assert all(link.startswith("#") for link in parsed.links)  # only links within the page
    urls = set(re.findall(r"url\(([^)]*)\)", page))
    assert urls and all(u.startswith("#") for u in urls)  # the arrow markers of the figure
    assert "@import" not in page and "<link" not in page
    # the only address is the SVG namespace, which is a name, not a fetch
    assert set(re.findall(r"https?://[^\s\"'<>]+", page)) == {"http://www.w3.org/2000/svg"}


def test_the_page_has_every_step_in_order_in_folding_sections_and_a_contents(rp_arm_page):
    eq, page = rp_arm_page
    parsed = _parsed(page)
    ids = [f"step-{k}" for k in range(1, len(eq.steps) + 1)]
    assert set(ids) <= parsed.ids
    assert [f"#{i}" for i in ids] == [link for link in parsed.links
                                      if link.startswith("#step-")]
    assert {link[1:] for link in parsed.links} <= parsed.ids  # no dead link
    sections = list(dict.fromkeys(s.section for s in eq.steps))
    assert page.count('<details class="section"') == len(sections) + 1  # and the result
    assert parsed.tags.count("summary") == len(sections) + 1
    positions = [page.index(f'id="step-{k}"') for k in range(1, len(eq.steps) + 1)]
    assert positions == sorted(positions)
    text = "".join(parsed.text)
    for step in eq.steps:
        assert step.title in text
    # each step has its math; the figure is inline SVG
    assert page.count("<math") >= len(eq.steps) + len(eq.params)
    assert parsed.tags.count("svg") == 1 and "<figure>" in page
    assert parsed.title == "Equations of motion of rp-arm by Lagrange-Euler"
    description = " ".join(rd.load("rp-arm").description.split())
    assert description[:60] in " ".join(text.split())  # the description


def test_every_math_element_is_well_formed_mathml(rp_arm_page):
    _, page = rp_arm_page
    blocks = re.findall(r"<math[ >].*?</math>", page, flags=re.S)
    assert len(blocks) == page.count("<math")
    allowed = {"math", "mrow", "mi", "mn", "mo", "mtext", "mspace", "msub", "msup",
               "msubsup", "munder", "mover", "munderover", "mfrac", "msqrt", "mroot",
               "mtable", "mtr", "mtd", "mstyle"}
    for block in blocks:
        root = ET.fromstring(block.replace("&#x2061;", "\u2061"))
        assert {n.tag for n in root.iter()} <= allowed
        for n in root.iter():
            if n.tag in ("msub", "msup", "mfrac", "munder", "mover", "mroot"):
                assert len(n) == 2, block[:200]
            if n.tag in ("msubsup", "munderover"):
                assert len(n) == 3
        assert "tex-source" not in block and "tex-unknown" not in block, block[:300]
        assert "<U+" not in block  # no line break of the LaTeX shown as a character


def test_the_figure_is_the_forward_kinematics_at_the_pose_it_names():
    """planar-2r seen along its joint axes, gravity down the page: joint 2 at angle q1
    from the base (screen y grows downwards), the centre of mass of link 1 at c1/l1 of
    the way there, that of link 2 at angle q1 + q2 beyond joint 2 (seed 003's drawing)."""
    eq = rd.load("planar-2r").equations()
    svg, pose, which = arm_svg(eq)
    q1, q2 = pose.q
    v = pose.values
    assert which == "DH frames" and 0.1 < abs(q1) < 3 and 0.1 < abs(q2) < 3
    joints = [(float(x), float(y)) for x, y in
              re.findall(r'class="joint" cx="([-\d.]+)" cy="([-\d.]+)"', svg)]
    coms = [(float(x), float(y)) for x, y in
            re.findall(r'<g class="com"><circle cx="([-\d.]+)" cy="([-\d.]+)"', svg)]
    assert len(joints) == 2 and len(coms) == 2
    (x0, y0), (x1, y1) = joints
    angle = math.atan2(-(y1 - y0), x1 - x0)
    assert angle == pytest.approx(q1, abs=0.01)
    scale = math.hypot(x1 - x0, y1 - y0) / v["l1"]
    cx, cy = coms[0]
    assert (cx - x0, cy - y0) == pytest.approx(
        (scale * v["c1"] * math.cos(q1), -scale * v["c1"] * math.sin(q1)), abs=0.2)
    cx, cy = coms[1]
    assert (cx - x1, cy - y1) == pytest.approx(
        (scale * v["c2"] * math.cos(q1 + q2), -scale * v["c2"] * math.sin(q1 + q2)), abs=0.2)
    # the gravity arrow points down the page
    (gx0, gy0, gx1, gy1), = [tuple(map(float, m)) for m in re.findall(
        r'class="gravity" d="M([-\d.]+),([-\d.]+) L([-\d.]+),([-\d.]+)"', svg)]
    assert gx1 == pytest.approx(gx0, abs=0.1) and gy1 > gy0
    # the joint variables and the frames 0..2 are labelled
    labels = re.sub(r"<[^>]+>", " ", svg)
    assert re.search(r"q\s*1", labels) and re.search(r"x\s*0", labels)
    assert re.search(r"x\s*2", labels)


def test_a_spatial_arm_is_drawn_with_gravity_down_the_page():
    """cartesian-2p in the oblique view, z0 (up, against gravity) vertical on the page:
    joint 2's sleeve straight above joint 1's, d1 higher; the x0 axis slants, and the
    three axes of each frame are drawn as arrows (none points at the reader)."""
    eq = rd.load("cartesian-2p").equations()
    svg, pose, which = arm_svg(eq)
    sleeves = [(float(x) + 13, float(y) + 7) for x, y in
               re.findall(r'class="sleeve" x="([-\d.]+)" y="([-\d.]+)"', svg)]
    assert len(sleeves) == 2
    (x1, y1), (x2, y2) = sleeves
    assert x2 == pytest.approx(x1, abs=0.2) and y2 < y1 - 50
    assert svg.count('class="axis"') == 9 and 'class="axis-end"' not in svg
    assert which == "DH frames" and pose.q[0] > 0 and pose.q[1] > 0


def test_hostile_names_are_escaped_and_the_page_has_no_script(tmp_path):
    hostile = "</title><script>alert(1)</script> \"quoted\" & 'x'"
    text = GOOD_MODEL.replace(
        "name: test-arm", "name: \"</title><script>alert(1)</script> \\\"quoted\\\" & 'x'\"")
    text += "description: '<img src=x onerror=alert(2)> & <script>'\n"
    text += "display: {q1: theta_1, q2: '\\theta_2'}\n"
    text = text.replace("description: '", "description: '<p>first line\n\n\n  second paragraph ")
    robot = rd.load(write_model(tmp_path, text))
    assert robot.name == hostile and "first line\n\nsecond" in robot.description
    eq = robot.equations()
    # a parameter and display names that are markup, made in Python (a model file allows
    # neither)
    evil = sp.Symbol("<script>m")
    eq2 = derive(eq.chain.subs({sp.Symbol("m2"): evil}), name=hostile)
    eq3 = Equations(eq.derivation, name=hostile, display={"q1": "<script>", "q2": "</math>&"})
    full = eq.html(steps=True, description=robot.description)
    pages = (full, eq2.html(), eq._repr_html_(), eq3.html())
    assert "&lt;script&gt;m" in pages[1] and "&lt;/math&gt;&amp;" in pages[3]
    for page in pages:
        assert "<script" not in page.lower() and "<img" not in page.lower()
        assert "&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page
        assert "&quot;quoted&quot; &amp; &#x27;x&#x27;" in page
        parsed = _parsed(page)
        assert "script" not in parsed.tags and "img" not in parsed.tags
        assert not [a for a in parsed.attrs if a[1].startswith("on")]
    parsed = _parsed(full)
    assert parsed.title == f"Equations of motion of {hostile} by Lagrange-Euler"
    assert "<img src=x onerror=alert(2)> & <script>" in "".join(parsed.text)
    # the description's two paragraphs, its line break not shown as a character
    assert '<p class="lead">&lt;p&gt;first line</p>' in full and "<U+000A>" not in full


def test_jupyter_shows_the_equations_as_a_styled_fragment():
    eq = rd.load("pendulum").equations()
    fragment = eq._repr_html_()
    assert fragment.startswith('<div class="robodyn">') and "<style>" in fragment
    assert "<html" not in fragment and "<!DOCTYPE" not in fragment
    assert "step-1" not in fragment and "<main" not in fragment
    # its ids are its own (two in one notebook do not share them), its links go to them
    parsed = _parsed(fragment)
    assert "rd-pendulum-lagrange-result" in parsed.ids
    assert parsed.links and {link[1:] for link in parsed.links} <= parsed.ids
    other = _parsed(rd.load("pendulum").equations(method="newton-euler")._repr_html_())
    assert not (parsed.ids & other.ids)
    assert fragment.count("<math") >= 4 and "<svg" in fragment
    # the style sheet touches only the page's own elements
    css = fragment.split("<style>", 1)[1].split("</style>", 1)[0]
    selectors = [s.strip() for rule in re.findall(r"([^{}]+)\{", css)
                 for s in rule.split(",") if not s.strip().startswith("@")]
    assert selectors and all(s.startswith(".robodyn") for s in selectors)


def test_derive_format_html_on_the_command_line(capsys):
    assert main(["derive", "pendulum", "--steps", "--format", "html", "--verify"]) == 0
    page = capsys.readouterr().out
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert 'id="step-1"' in page and "<svg" in page and "Pendulum of Siciliano et al." in page
    report = page.split('<pre class="report">', 1)[1].split("</pre>", 1)[0]
    assert "Verification" in report and "[ok] M is symmetric" in report
    assert main(["derive", "pendulum", "--format", "html", "--regressor"]) == 0
    short = capsys.readouterr().out
    assert 'id="step-1"' not in short and 'id="result"' in short
    report = short.split('<pre class="report">', 1)[1].split("</pre>", 1)[0]
    assert "Regressor: tau = Y(q, qd, qdd) pi (checked: Y pi == tau exactly)" in report
    assert short.index("</pre>") < short.index("</main>")


# -- in a browser ----------------------------------------------------------------------
BROWSER = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")
                if shutil.which(b)), None)
needs_browser = pytest.mark.skipif(BROWSER is None, reason="no Chromium installed")


def _chromium(tmp_path, page: str, *flags: str, timeout: float = 90):
    path = tmp_path / "page.html"
    path.write_text(page, encoding="utf-8")
    return subprocess.run(
        [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1000,1400", *flags,
         path.as_uri()], capture_output=True, text=True, timeout=timeout)


def _parses_in_chromium(tmp_path, page: str) -> None:
    """``page`` opened in headless Chromium: its DOM has every ``<math>`` of the page as
    an element (none left as text), the figure, and no script."""
    dom = _chromium(tmp_path, page, "--dump-dom").stdout
    assert dom.count("<math") == page.count("<math") > 0
    assert "&lt;math" not in dom and "&lt;mrow" not in dom
    assert dom.count("<svg") == 1 and "<script" not in dom


def _screenshot_shows_the_page(tmp_path, page: str) -> None:
    """The screenshot of ``page`` shows text and math (dark ink on much of it, not a
    blank page) and the figure (the red x and blue z axes)."""
    pil = pytest.importorskip("PIL.Image")
    shot = tmp_path / "shot.png"
    _chromium(tmp_path, page, f"--screenshot={shot}")
    pixels = np.asarray(pil.open(shot).convert("RGB"), dtype=int)
    assert pixels.shape == (1400, 1000, 3)
    r, g, b = pixels[..., 0], pixels[..., 1], pixels[..., 2]
    assert ((r + g + b) < 300).mean() > 0.01
    assert ((r > 150) & (g < 90) & (b < 90)).sum() > 30
    assert ((b > 140) & (r < 80) & (g < 150)).sum() > 30


#: The pages whose screenshot is checked too: planar, prismatic and spatial arms.
SCREENSHOTS = ("rp-arm", "planar-2r", "cartesian-2p")


@needs_browser
@pytest.mark.slow
@pytest.mark.parametrize("name", SYMBOLIC_MODELS)
def test_every_builtin_page_renders_in_chromium(tmp_path, name):
    """Every built-in's page with its steps (puma560's without: its derivation alone
    takes half a minute, its steps as long again), parsed by the browser; a planar, a
    prismatic and a spatial arm's screenshot looked at."""
    robot = rd.load(name)
    page = robot.equations().html(steps=name != "puma560", description=robot.description)
    _parses_in_chromium(tmp_path, page)
    if name in SCREENSHOTS:
        _screenshot_shows_the_page(tmp_path, page)
