#!/usr/bin/python3
"""Submits one job to a transcoded daemon, follows it to the end, and prints the result.

    python3 -m transcoded_client --proto-dir ../../proto   # once, from a checkout (no wheel)
    python3 examples/submit.py --server 127.0.0.1:50051 /media/in.mp4 /media/out.mp4 \\
        --codec h264 --size 1280x720

Paths are the daemon's: they must lie under its media roots. Exit status: 0 when the job
succeeded, 1 when it failed, 2 when the daemon refused the request (reason and field printed).
"""
import argparse
import os
import sys

try:  # the installed package; else the checkout's, beside this example
    from transcoded_client import Client, TranscodedError
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    from transcoded_client import Client, TranscodedError


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--server", default="127.0.0.1:50051")
    parser.add_argument("--token", default=os.environ.get("TRANSCODED_TOKEN"))
    parser.add_argument("--stubs", help="generated stubs (default: transcoded_client/_generated)")
    parser.add_argument("--codec", default="h264")
    parser.add_argument("--size", default="0x0", help="WxH; 0 keeps the source's")
    parser.add_argument("input")
    parser.add_argument("output")
    return parser.parse_args()


def main():
    args = parse_args()
    width, height = (int(side) for side in args.size.split("x"))
    with Client(args.server, token=args.token, stubs_dir=args.stubs) as client:
        try:
            job = client.submit(args.input, [client.output(args.output, codec=args.codec,
                                                           width=width, height=height)])
            print(f"job {job.id} queued", flush=True)
            job = client.wait(job.id)
        except TranscodedError as error:
            print(f"submit.py: {error.code.name}: {error.message}", file=sys.stderr)
            if error.reason:
                print(f"submit.py: reason {error.reason}, field {error.field or '-'}",
                      file=sys.stderr)
            return 2
        state = client.pb.job_pb2.JobState.Name(job.state)
        if job.state != client.pb.job_pb2.JOB_STATE_SUCCEEDED:
            print(f"job {job.id} {state}: {job.error.message}", file=sys.stderr)
            return 1
        out = job.result.outputs[0]
        print(f"job {job.id} {state}: {out.path} {out.width}x{out.height}, "
              f"{out.frames} frames, {job.result.fps:.1f} fps, {job.result.speed:.2f}x")
        return 0


if __name__ == "__main__":
    sys.exit(main())
