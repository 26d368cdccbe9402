"""A retention.dat in Naemon's format (xrddefault.c, as Naemon 1.5.2 writes it; fields left out take Naemon's
defaults) with what the engine does not create yet: an acknowledged CRITICAL service (ACKED) with its
acknowledgement comment and notification fields, a persistent host comment, and a fixed service downtime in
effect (MAINT) with its downtime comment. OBJECTS is the configuration it belongs to.

    with open(v.path("retention.dat"), "w") as f:
        f.write(RETENTION.format(**times(int(time.time()))))
"""

OBJECTS = """
define host {
  host_name web01
  address 127.0.0.1
  check_command check_dummy!0!web01 up
  max_check_attempts 1
  check_interval 0
  contacts admin
}
define service {
  host_name web01
  service_description ACKED
  check_command check_state_file!acked.state
  max_check_attempts 1
  check_interval 1
  contacts admin
}
define service {
  host_name web01
  service_description MAINT
  check_command check_dummy!0!maint ok
  max_check_attempts 1
  check_interval 3600
  contacts admin
}
"""

RETENTION = """\
info {{
created={now}
version=1.5.2
}}
program {{
modified_host_attributes=0
modified_service_attributes=0
next_comment_id=12
next_downtime_id=4
next_event_id=40
}}
host {{
host_name=web01
modified_attributes=0
has_been_checked=1
current_state=0
last_state=0
last_hard_state=0
plugin_output=web01 up
last_check={recent}
next_check=0
current_attempt=1
max_attempts=1
state_type=1
last_state_change={long_ago}
last_hard_state_change={long_ago}
last_time_up={recent}
}}
service {{
host_name=web01
service_description=ACKED
modified_attributes=0
has_been_checked=1
check_type=0
current_state=2
last_state=2
last_hard_state=2
last_event_id=37
current_event_id=38
current_problem_id=6f1c2a4e-0d7b-4c55-9a43-7f1d2a9e8b10
last_problem_id=
problem_start={long_ago}
problem_end=0
current_attempt=1
max_attempts=1
state_type=1
last_state_change={long_ago}
last_hard_state_change={long_ago}
last_time_critical={recent}
plugin_output=CRITICAL: queue stuck
last_check={recent}
next_check=0
notified_on_critical=1
last_notification={notified}
current_notification_number=2
current_notification_id=0c9e51d2-3f4a-4e8b-b6a1-2d7c9f0e4a55
problem_has_been_acknowledged=1
acknowledgement_type=1
acknowledgement_end_time=0
is_flapping=0
percent_state_change=6.58
}}
service {{
host_name=web01
service_description=MAINT
modified_attributes=0
has_been_checked=1
current_state=0
last_state=0
last_hard_state=0
current_attempt=1
max_attempts=1
state_type=1
last_state_change={long_ago}
last_hard_state_change={long_ago}
plugin_output=maint ok
last_check={recent}
next_check=0
}}
contact {{
contact_name=admin
modified_attributes=0
modified_host_attributes=0
modified_service_attributes=0
last_host_notification=0
last_service_notification={notified}
}}
hostcomment {{
host_name=web01
entry_type=1
comment_id=7
source=1
persistent=1
entry_time={long_ago}
expires=0
expire_time=0
author=alice
comment_data=rack 12 is being rewired
}}
servicecomment {{
host_name=web01
service_description=ACKED
entry_type=4
comment_id=9
source=1
persistent=0
entry_time={recent}
expires=0
expire_time=0
author=bob
comment_data=looking into the queue
}}
servicecomment {{
host_name=web01
service_description=MAINT
entry_type=2
comment_id=11
source=0
persistent=0
entry_time={long_ago}
expires=0
expire_time=0
author=carol
comment_data=This service has been scheduled for fixed downtime.
}}
servicedowntime {{
host_name=web01
service_description=MAINT
comment_id=11
downtime_id=3
entry_time={long_ago}
start_time={long_ago}
flex_downtime_start=0
end_time={later}
triggered_by=0
fixed=1
duration={duration}
is_in_effect=1
start_notification_sent=1
author=carol
comment=disk swap
}}
"""


def times(now):
    """The values of the placeholders in RETENTION for a file read at `now`."""
    return {"now": now, "recent": now - 30, "long_ago": now - 3600, "later": now + 86400,
            "duration": 86400 + 3600, "notified": now - 600}
