#!/usr/bin/env python3
"""Prints the `run: |` script of the step named NAME in a GitHub Actions
workflow (usage: workflow_step.py WORKFLOW.yml NAME), so that a test runs the
exact commands the documented workflow runs. Read without a YAML library,
which the test machines may lack: a step is `- name: NAME` and its block
scalar `run: |` is every following line indented deeper than `run:`."""
import sys


def step_script(path, name):
    lines = open(path, encoding="utf-8").read().splitlines()
    in_step = False
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("- name:"):
            in_step = stripped[len("- name:"):].strip() == name
            continue
        if in_step and stripped == "run: |":
            indent = len(line) - len(line.lstrip())
            body = []
            for text in lines[i + 1:]:
                if text.strip() and len(text) - len(text.lstrip()) <= indent:
                    break
                body.append(text)
            depth = min(len(t) - len(t.lstrip()) for t in body if t.strip())
            return "\n".join(t[depth:] for t in body) + "\n"
    return None


def main(argv):
    script = step_script(argv[1], argv[2])
    if script is None:
        print(f"workflow_step: no step '{argv[2]}' with a `run: |` script in {argv[1]}", file=sys.stderr)
        return 2
    sys.stdout.write(script)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
