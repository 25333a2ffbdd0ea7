"""examples/amg/galerkin.py on a small smoothed-aggregation level that the spk command writes (skipped where the
command has not been built): A_c = R A P recomputed through SpGEMM plans equals SciPy's at every step."""
import importlib.util
import subprocess

import pytest

from conftest import REPO


def test_galerkin_products_recomputed_through_plans_match_scipy(tmp_path):
    spk_cli = REPO / "build" / "bin" / "spk"
    if not spk_cli.exists():
        pytest.skip(f"{spk_cli} not built")
    subprocess.run([str(spk_cli), "gen", "laplace3d:n=12", "--amg", "--quiet", "-o", str(tmp_path / "lap.mtx")], check=True)
    spec = importlib.util.spec_from_file_location("amg_galerkin", REPO / "examples" / "amg" / "galerkin.py")
    galerkin = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(galerkin)
    assert galerkin.main([str(tmp_path / "lap"), "--steps", "2"]) < 1e-12
