"""What the SDK's tests share: a real server in a child process (`python -m president_service serve`)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc

ADMIN = "sdk-test-admin"


class Server:
    def __init__(self, db: Path, port: int) -> None:
        self.port = port
        self.address = f"127.0.0.1:{port}"
        self.log = db.with_suffix(f".{time.monotonic_ns()}.log")
        with self.log.open("w") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "president_service", "serve", "--port", str(port), "--db", str(db)],
                env=dict(os.environ, PRESIDENT_ADMIN_TOKEN=ADMIN), stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while "serving on" not in self.log.read_text():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"server did not start: {self.log.read_text()}")
            time.sleep(0.05)

    def create(self, preset: str = "cardverse", *, clock: pb.ClockSettings | None = None,
               **rules: Any) -> list[str]:
        with grpc.insecure_channel(self.address) as channel:
            stub = pb_grpc.PresidentServiceStub(channel)
            response = stub.CreateMatch(
                pb.CreateMatchRequest(preset=preset, rules=pb.Rules(**rules), seed=5,
                                      clock=clock or pb.ClockSettings(move_time_limit_ms=0)),
                metadata=(("authorization", f"Bearer {ADMIN}"),))
        return [seat.token for seat in response.seats]

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(10)
