#!/usr/bin/python3
"""A client in another language: Debian's python3-grpcio with stubs generated from proto/ at
test time. Runs one job end to end against a real daemon, and checks health and reflection.

Stubs come from Debian's protoc and grpc_python_plugin (protobuf-compiler,
protobuf-compiler-grpc): Debian 12's python3-grpc-tools bundles protoc 3.5.1, which rejects
proto3 `optional` ("Explicit 'optional' labels are disallowed"), and JobConfig needs it.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

SOURCE = os.environ["TC_SOURCE_DIR"]
TRANSCODED = os.environ["TRANSCODED"]
HERE = os.path.dirname(os.path.abspath(__file__))


def generate_stubs(out):
    os.makedirs(out)
    protos = [
        (os.path.join(SOURCE, "proto"), ["transcode/v1/job.proto", "transcode/v1/transcoder.proto"]),
        (os.path.join(HERE, "protos"),
         ["grpc_std/health.proto", "grpc_std/reflection.proto"]),
    ]
    for include, files in protos:
        subprocess.run(["protoc", "-I", include, "-I", "/usr/include", "--python_out", out,
                        "--grpc_python_out", out,
                        "--plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin"] +
                       [os.path.join(include, f) for f in files], check=True)
    sys.path.insert(0, out)


class PythonClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="tcd-py-")
        try:
            cls.start_daemon()
        except BaseException:
            shutil.rmtree(cls.tmp, ignore_errors=True)  # tearDownClass does not run
            raise

    @classmethod
    def start_daemon(cls):
        generate_stubs(os.path.join(cls.tmp, "stubs"))
        cls.media = os.path.join(cls.tmp, "media")
        os.makedirs(cls.media)
        cls.input = os.path.join(cls.media, "in.mp4")
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                        "testsrc2=size=320x240:rate=30", "-f", "lavfi", "-i", "sine", "-t", "1",
                        "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", cls.input],
                       check=True)
        env = dict(os.environ)
        env.pop("TC_TEST_FAULT", None)
        cls.daemon = subprocess.Popen(
            [TRANSCODED, "--listen", "127.0.0.1:0", "--state-dir", os.path.join(cls.tmp, "state"),
             "--media-root", cls.media, "--log-level", "warn"],
            stdout=subprocess.PIPE, env=env)
        line = cls.daemon.stdout.readline().decode().strip()
        assert line.startswith("listening "), line
        cls.address = line.split(" ", 1)[1]
        import grpc
        cls.channel = grpc.insecure_channel(cls.address)

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        cls.daemon.send_signal(signal.SIGTERM)
        try:
            cls.daemon.wait(timeout=60)
        except subprocess.TimeoutExpired:
            cls.daemon.kill()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_health_is_serving(self):
        from grpc_std import health_pb2, health_pb2_grpc
        stub = health_pb2_grpc.HealthStub(self.channel)
        reply = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=30)
        self.assertEqual(reply.status, health_pb2.HealthCheckResponse.SERVING)
        reply = stub.Check(health_pb2.HealthCheckRequest(service="transcode.v1.Transcoder"),
                           timeout=30)
        self.assertEqual(reply.status, health_pb2.HealthCheckResponse.SERVING)

    def test_reflection_lists_the_services(self):
        from grpc_std import reflection_pb2, reflection_pb2_grpc
        stub = reflection_pb2_grpc.ServerReflectionStub(self.channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        replies = list(stub.ServerReflectionInfo(iter([request]), timeout=30))
        names = {s.name for s in replies[0].list_services_response.service}
        self.assertIn("transcode.v1.Transcoder", names)
        self.assertIn("grpc.health.v1.Health", names)

    def test_one_job_end_to_end(self):
        from transcode.v1 import job_pb2, transcoder_pb2, transcoder_pb2_grpc
        stub = transcoder_pb2_grpc.TranscoderStub(self.channel)
        out = os.path.join(self.media, "py.mp4")
        config = job_pb2.JobConfig(input=self.input,
                                   outputs=[job_pb2.OutputConfig(path=out, codec="h264",
                                                                 width=160, height=120)])
        job = stub.CreateJob(transcoder_pb2.CreateJobRequest(config=config, request_id="py-1"),
                             timeout=30)
        self.assertTrue(job.id)
        kinds = []
        final = None
        for event in stub.WatchJob(transcoder_pb2.WatchJobRequest(id=job.id), timeout=240):
            kinds.append(event.kind)
            final = event.job
        self.assertEqual(kinds[0], transcoder_pb2.JobEvent.KIND_SNAPSHOT)
        self.assertEqual(final.state, job_pb2.JOB_STATE_SUCCEEDED, final.error.message)
        self.assertEqual(final.result.outputs[0].width, 160)
        self.assertGreater(final.result.frames_decoded, 0)
        report = json.loads(final.result.report_json)
        self.assertEqual(report["outputs"][0]["path"], out)
        probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0",
                                "-show_entries", "stream=width,height", "-of", "csv=p=0", out],
                               capture_output=True, text=True, check=True)
        self.assertEqual(probe.stdout.strip(), "160,120")
        # A retried create with the same request id is the same job.
        again = stub.CreateJob(transcoder_pb2.CreateJobRequest(config=config, request_id="py-1"),
                               timeout=30)
        self.assertEqual(again.id, job.id)


if __name__ == "__main__":
    unittest.main(verbosity=2)
