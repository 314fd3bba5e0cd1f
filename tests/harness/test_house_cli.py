"""``president house`` prints each match's end once, though every house account seated in the match plays it
(issue 44: a match of three house bots printed its end three times)."""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

import grpc
from president_harness.child_server import ChildServer
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from process_support import PRESIDENT, stop_with_ctrl_c, wait_for_text

LEVELS = ("hard", "normal", "easy", "random")


def test_each_match_of_several_house_bots_is_told_over_once(tmp_path: Path) -> None:
    with ChildServer(tmp_path / "house.db") as server:
        out = tmp_path / "house.out"
        with out.open("w") as sink:
            house = subprocess.Popen([str(PRESIDENT), "house", ",".join(LEVELS), "--server", server.address],
                                     stdout=sink, stderr=subprocess.STDOUT, text=True,
                                     env=dict(os.environ, PRESIDENT_ADMIN_TOKEN=server.admin_token))
        try:
            wait_for_text(out, house, "Ctrl-C stops")
            with grpc.insecure_channel(server.address) as channel:
                stub = pb_grpc.PresidentServiceStub(channel)
                made = [stub.CreateMatch(pb.CreateMatchRequest(
                    preset="cardverse", seed=seed, rules=pb.Rules(deals=1),
                    seat_accounts=[f"house-{level}" for level in LEVELS]),
                    metadata=(("authorization", f"Bearer {server.admin_token}"),), timeout=10).match_id
                    for seed in range(3)]
            for match_id in made:
                wait_for_text(out, house, f"match {match_id} over")
            time.sleep(1.0)  # every seat's report of the ends is in by now
        finally:
            stop_with_ctrl_c(house)
        told = re.findall(r"^match (\S+) over$", out.read_text(), re.M)
        assert sorted(told) == sorted(made), out.read_text()
