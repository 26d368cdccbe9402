"""status.dat shows what retention.dat carried: comments, downtimes, acknowledgements, notification fields.

The real daemon starts on a retention.dat in Naemon's format (xrddefault.c) holding a persistent host
comment, an acknowledged CRITICAL service with its acknowledgement comment, and a fixed service downtime in
effect with its downtime comment. status.dat must show them as Naemon's xsddefault_save_status_data writes
them: comment and downtime blocks after the contacts, each field in its place, the acknowledgement and
notification fields in the service's block, and scheduled_downtime_depth counting the downtime in effect.
They stay across a reload, and once the acknowledged service recovers, the acknowledgement is over and
status.dat says so.
"""
import signal
import time
import unittest

import status_dat
from acknowledged_fixture import OBJECTS, RETENTION, times
from running_daemon import RunningVedette

MAIN = """\
retain_state_information=1
state_retention_file=retention.dat
retention_update_interval=60
status_file=status.dat
status_update_interval=1
"""

def blocks_by_name(blocks):
    return {status_dat.block_name(kind, fields): fields for kind, fields in blocks}


class StatusShowsRetainedComments(unittest.TestCase):
    def test_comments_downtime_and_acknowledgement_from_retention(self):
        v = RunningVedette(self, objects=OBJECTS, main_extra=MAIN, start=False)
        v.set_state("acked.state", 2, "CRITICAL: queue stuck")
        now = int(time.time())
        t = times(now)
        with open(v.path("retention.dat"), "w") as f:
            f.write(RETENTION.format(**t))
        v.start()

        # ACKED checked again in this run (still CRITICAL, so still acknowledged).
        def acked_checked_again(blocks):
            fields = dict(blocks_by_name(blocks).get("servicestatus web01;ACKED", []))
            return int(fields.get("last_check", 0)) > t["recent"]
        text = status_dat.wait_until(v.path("status.dat"), acked_checked_again, 30, "a new check of ACKED")
        self.check_retained(status_dat.parse(text), t)

        # A reload carries them over to the new configuration's objects.
        v.proc.send_signal(signal.SIGHUP)
        v.wait_for(r"Configuration reloaded")
        reloaded = int(time.time())

        def written_after_reload(blocks):
            return int(dict(blocks_by_name(blocks)["info"])["created"]) > reloaded
        text = status_dat.wait_until(v.path("status.dat"), written_after_reload, 30, "status.dat after the reload")
        self.check_retained(status_dat.parse(text), t)

        # The problem is over: the acknowledgement ends, the recovery notification is viable (the problem was
        # notified: notified_on_critical) and gets a new id, though admin takes no recoveries (a contact
        # without service_notification_options takes nothing, as in Naemon), and the counters go back to 0.
        v.set_state("acked.state", 0, "OK: queue drained")

        def acked_recovered(blocks):
            fields = dict(blocks_by_name(blocks).get("servicestatus web01;ACKED", []))
            return fields.get("current_state") == "0"
        blocks = status_dat.parse(status_dat.wait_until(v.path("status.dat"), acked_recovered, 30,
                                                        "ACKED to recover"))
        acked = dict(blocks_by_name(blocks)["servicestatus web01;ACKED"])
        self.assertEqual((acked["problem_has_been_acknowledged"], acked["acknowledgement_type"],
                          acked["current_notification_number"], acked["last_notification"]),
                         ("0", "0", "0", "0"))
        self.assertRegex(acked["current_notification_id"], r"^[0-9a-f]{8}-[0-9a-f]{4}-4")
        self.assertNotEqual(acked["current_notification_id"], "0c9e51d2-3f4a-4e8b-b6a1-2d7c9f0e4a55")
        v.wait_for(r"SERVICE CONTACT NOTIFICATION SUPPRESSED: admin;web01;ACKED;Notifications disabled for "
                   r"current object state\.$")
        self.assertEqual(v.stop(), 0)

    def check_retained(self, blocks, t):
        kinds = [kind for kind, _ in blocks]
        self.assertEqual(kinds[-4:], ["hostcomment", "servicecomment", "servicecomment", "servicedowntime"])
        self.assertEqual(kinds[-5], "contactstatus")
        named = blocks_by_name(blocks)

        program = dict(named["programstatus"])
        self.assertEqual((program["next_comment_id"], program["next_downtime_id"], program["next_event_id"]),
                         ("12", "4", "40"))

        # Every field, in Naemon's order.
        self.assertEqual(named["hostcomment web01"], [
            ("host_name", "web01"), ("entry_type", "1"), ("comment_id", "7"), ("source", "1"),
            ("persistent", "1"), ("entry_time", str(t["long_ago"])), ("expires", "0"), ("expire_time", "0"),
            ("author", "alice"), ("comment_data", "rack 12 is being rewired")])
        self.assertEqual(named["servicecomment web01;ACKED"], [
            ("host_name", "web01"), ("service_description", "ACKED"), ("entry_type", "4"), ("comment_id", "9"),
            ("source", "1"), ("persistent", "0"), ("entry_time", str(t["recent"])), ("expires", "0"),
            ("expire_time", "0"), ("author", "bob"), ("comment_data", "looking into the queue")])
        self.assertEqual(dict(named["servicecomment web01;MAINT"])["comment_id"], "11")
        self.assertEqual(named["servicedowntime web01;MAINT"], [
            ("host_name", "web01"), ("service_description", "MAINT"), ("downtime_id", "3"), ("comment_id", "11"),
            ("entry_time", str(t["long_ago"])), ("start_time", str(t["long_ago"])), ("flex_downtime_start", "0"),
            ("end_time", str(t["later"])), ("triggered_by", "0"), ("fixed", "1"), ("duration", str(t["duration"])),
            ("is_in_effect", "1"), ("start_notification_sent", "1"), ("author", "carol"),
            ("comment", "disk swap")])

        acked = dict(named["servicestatus web01;ACKED"])
        self.assertEqual(acked["current_state"], "2")
        expected = {
            "problem_has_been_acknowledged": "1", "acknowledgement_type": "1", "acknowledgement_end_time": "0",
            "last_event_id": "37", "current_event_id": "38",
            "current_problem_id": "6f1c2a4e-0d7b-4c55-9a43-7f1d2a9e8b10", "last_problem_id": "",
            "problem_start": str(t["long_ago"]), "problem_end": "0", "last_notification": str(t["notified"]),
            "current_notification_number": "2",
            "current_notification_id": "0c9e51d2-3f4a-4e8b-b6a1-2d7c9f0e4a55", "scheduled_downtime_depth": "0",
        }
        self.assertEqual({k: acked[k] for k in expected}, expected)
        # 6.58 as retained until the next result; then computed again from the retained state history (which
        # the fixture leaves out: 21 OKs) and the CRITICAL results since.
        self.assertRegex(acked["percent_state_change"], r"^[0-9]+\.[0-9]{2}$")
        self.assertEqual(dict(named["servicestatus web01;MAINT"])["scheduled_downtime_depth"], "1")
        self.assertEqual(dict(named["hoststatus web01"])["scheduled_downtime_depth"], "0")
        self.assertEqual(dict(named["contactstatus admin"])["last_service_notification"], str(t["notified"]))


if __name__ == "__main__":
    unittest.main()
