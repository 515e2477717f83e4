#!/bin/bash
# SPDX-License-Identifier: MIT
# deploy/ansible/site.yml passes ansible-playbook --syntax-check with each
# way of installing diskproof (deb, source, none), and every task of the
# play and its role uses an ansible.builtin module (no collection a plain
# ansible-core install lacks); the example inventory parses, with the
# diskproof group's three hosts. Cheap: nothing connects anywhere. Exit 77
# without ansible-playbook.
source "$(dirname "$0")/lib.sh"
set -e
command -v ansible-playbook >/dev/null || { echo "skipped: no ansible-playbook (ansible-core)"; exit 77; }
A="$DP_SOURCE_DIR/deploy/ansible"
# nothing read from or written to ~/.ansible or /etc/ansible
mkdir -p ansible/tmp ansible/home
cat >ansible.cfg <<CFG
[defaults]
home = $WORK/ansible/home
local_tmp = $WORK/ansible/tmp
retry_files_enabled = False
CFG
export ANSIBLE_CONFIG="$WORK/ansible.cfg" ANSIBLE_NOCOLOR=1

for how in "diskproof_install=deb diskproof_deb=/nonexistent/diskproof.deb" \
	"diskproof_install=source" "diskproof_install=none diskproof_bin=/usr/bin/diskproof"; do
	# shellcheck disable=SC2086
	expect_exit 0 ansible-playbook --syntax-check -i "$A/inventory.example.ini" "$A/site.yml" -e "$how"
	grep -q 'playbook: .*site.yml' "$WORK/out" || fail "syntax-check said: $(cat "$WORK/out" "$WORK/err")"
	! grep -qi 'warning' "$WORK/err" || fail "syntax-check warned ($how): $(cat "$WORK/err")"
done

expect_exit 0 ansible-inventory -i "$A/inventory.example.ini" --list
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
hosts = d["diskproof"]["hosts"]
assert len(hosts) == 3, hosts
v = d["_meta"]["hostvars"][hosts[0]]
for k in ("diskproof_profile", "diskproof_data_dir", "diskproof_results", "diskproof_start_margin", "diskproof_deb"):
    assert k in v, "the example inventory sets no " + k
' "$WORK/out" || fail "the example inventory (above)"

# Every task's module, from the YAML itself: the playbook's plays and the
# role's task files (with Ansible's own python, which has PyYAML).
py=$(head -1 "$(command -v ansible-playbook)" | sed 's/^#! *//; s/ .*//')
"$py" - "$A" <<'PY' || fail "the modules the play uses (above)"
import glob, sys, yaml
a = sys.argv[1]
keywords = {"name", "when", "register", "loop", "loop_control", "run_once", "delegate_to",
            "changed_when", "failed_when", "until", "retries", "delay", "async", "poll",
            "throttle", "any_errors_fatal", "environment", "tags", "become", "vars",
            "ignore_errors", "no_log", "notify", "block", "rescue", "always", "args",
            "delegate_facts", "check_mode", "listen"}
seen = set()
def tasks(ts, where):
    for t in ts or []:
        for part in ("block", "rescue", "always"):
            if part in t:
                tasks(t[part], where)
        if "block" in t:
            continue
        mods = [k for k in t if k not in keywords]
        assert len(mods) == 1, "%s: task %r has %s" % (where, t.get("name"), mods)
        assert mods[0].startswith("ansible.builtin."), "%s: task %r uses %s" % (where, t.get("name"), mods[0])
        seen.add(mods[0])
for f in sorted(glob.glob(a + "/roles/diskproof/tasks/*.yml")):
    tasks(yaml.safe_load(open(f)), f)
for play in yaml.safe_load(open(a + "/site.yml")):
    assert play.get("roles") or play.get("tasks"), "a play with nothing to do"
    for part in ("pre_tasks", "tasks", "post_tasks"):
        tasks(play.get(part), "site.yml")
for m in ("ansible.builtin.async_status", "ansible.builtin.fetch", "ansible.builtin.command",
          "ansible.builtin.slurp", "ansible.builtin.copy"):
    assert m in seen, "no task uses " + m
print("modules:", " ".join(sorted(seen)))
PY
echo "ok"
