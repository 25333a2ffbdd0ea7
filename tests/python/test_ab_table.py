"""scripts/ab-table.py, the A/B table of `spk bench --json` files: variants of one multi-configuration run line up by
case whether the operation names its configuration in brackets (SpMM) or as "config=..." (SDDMM, FusedMM), and a last
row gives each variant's geometric mean of its time over the base's."""
import json
import subprocess
import sys

from conftest import REPO


def result(config, matrix, ms, variant):
    return {"config": config, "matrix": matrix, "n": 128, "median_s": ms / 1e3, "variant": variant}


def table(tmp_path, results):
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"results": results}))
    out = subprocess.run([sys.executable, str(REPO / "scripts" / "ab-table.py"), str(path)], check=True, capture_output=True, text=True)
    return out.stdout.splitlines()


def test_fusedmm_variants_line_up_and_close_with_their_geomean(tmp_path):
    lines = table(tmp_path, [
        result("fusedmm attention k=128 heads=1", "a", 2.0, "default"),
        result("fusedmm attention k=128 heads=1", "b", 4.0, "default"),
        result("fusedmm attention k=128 heads=1 config=rows16", "a", 1.0, "rows16"),
        result("fusedmm attention k=128 heads=1 config=rows16", "b", 8.0, "rows16"),
    ])
    assert lines[0] == "| case | n | default ms | rows16 ms |"
    assert lines[2] == "| fusedmm attention k=128 heads=1 a | 128 | 2 | 1 (0.50x) |"
    assert lines[3] == "| fusedmm attention k=128 heads=1 b | 128 | 4 | 8 (2.00x) |"
    assert lines[4] == "| geomean of the time over the base | | - | 1.000x (2 cases) |"


def test_spmm_variants_keep_their_plan_times_apart(tmp_path):
    lines = table(tmp_path, [
        result("spmm n=128 reduce=sum [rb.g16.r1.v4, plan 0.0300 ms]", "a", 2.0, "default"),
        result("spmm n=128 reduce=sum [rb.g32.r1.v4, plan 0.0250 ms]", "a", 3.0, "rb.g32.r1.v4"),
    ])
    assert lines[0] == "| case | n | default ms | rb.g32.r1.v4 ms | default plan ms | rb.g32.r1.v4 plan ms |"
    assert lines[2] == "| spmm n=128 reduce=sum a | 128 | 2 | 3 (1.50x) | 0.03 | 0.025 |"
    assert lines[3].startswith("| geomean of the time over the base | | - | 1.500x (1 case) |")
