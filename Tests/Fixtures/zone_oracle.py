#!/usr/bin/env python3
"""Python's zoneinfo as the oracle of ssvc's TZif reader and offer windows.

Reads JSON lines on stdin, answers one line each:
  {"zone": NAME, "instants": [SECONDS, ...]}
      -> the UTC offsets in seconds at those instants, space-separated.
  {"zone": NAME, "windows": [[DAY, START_MINUTE, MINUTES], ...],
   "from": SECONDS, "position": P}
      -> the offer instant by SPEC section 16, found by walking the clock
         from A: the first second whose wall-clock time in the zone is
         inside a window (merged from a mask of the week's minutes) and at
         least floor(P * L) minutes after its start; "none" past 15 days.
         It steps to the next covered minute or to the window's share, and
         minute by minute where the offset changes on the way; zones with
         whole-minute offsets only.
The first line out is "zoneinfo" and the tzdata path, for the record.
"""
import datetime
import json
import math
import sys
import zoneinfo

WEEK = 10080
UTC = datetime.timezone.utc


def offset(zone, seconds):
    instant = datetime.datetime.fromtimestamp(seconds, UTC)
    return int(instant.astimezone(zone).utcoffset().total_seconds())


def merged(windows):
    """Minutes of the week (Monday 00:00 = 0) covered, as a 2-week mask
    with each window's start and length: written from the definition,
    not the way ssvc merges."""
    covered = [False] * WEEK
    for day, start, minutes in windows:
        for m in range(minutes):
            covered[(day * 1440 + start + m) % WEEK] = True
    return covered


def window_of(covered, minute):
    """The start (in minutes, may be negative: last week) and length of the
    run of covered minutes holding `minute`; None if all are covered."""
    if all(covered):
        return None
    start = minute
    while covered[(start - 1) % WEEK]:
        start -= 1
    end = minute
    while covered[end % WEEK]:
        end += 1
    return start, end - start


def offer(zone, windows, first, position):
    covered = merged(windows)
    if all(covered):
        return first
    t = first
    limit = first + 15 * 86400
    while t <= limit:
        off = offset(zone, t)
        wall = t + off
        days = wall // 86400
        weekday = (days + 3) % 7
        minute_of_week = weekday * 1440 + (wall % 86400) // 60
        if covered[minute_of_week]:
            start, length = window_of(covered, minute_of_week)
            delay = min(math.floor(position * length), length - 1)
            week_base = (days - weekday) * 86400
            target = week_base + start * 60 + delay * 60
            if wall >= target:
                return t
            step = target - wall
        else:
            ahead = 1
            while not covered[(minute_of_week + ahead) % WEEK]:
                ahead += 1
            step = ahead * 60 - wall % 60
        step = min(step, 86400)
        # A jump keeps the wall clock's pace only with no change of offset
        # on the way (changes are months apart in the zones asked); near
        # one, the wall clock is read minute by minute.
        if offset(zone, t + step) != off:
            step = 60 - wall % 60
        t += step
    return None


def main():
    print("zoneinfo", zoneinfo.TZPATH[0] if zoneinfo.TZPATH else "?", flush=True)
    for line in sys.stdin:
        ask = json.loads(line)
        zone = zoneinfo.ZoneInfo(ask["zone"]) if ask["zone"] != "UTC" else UTC
        if "instants" in ask:
            print(" ".join(str(offset(zone, s)) for s in ask["instants"]), flush=True)
        else:
            found = offer(zone, ask["windows"], ask["from"], ask["position"])
            print("none" if found is None else found, flush=True)


main()
