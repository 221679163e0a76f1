#!/bin/bash
# Scenario "media": playback with deadlines, after the paper's MPlayer case.
# ffmpeg generates a 3-second 720x408 AVI (MPEG-4 part 2 video, the DivX 5
# format, and MP3 audio, as the paper's file); mpv plays it to the null
# audio and video outputs, which keep real-time pace: the decoder threads
# work ahead, and the player waits until each frame's presentation time.
#
# Usage: sudo scenarios/media.sh     (outputs in build/scenarios/media.*)
#   MEDIA_SECONDS (default 3)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
scen_init media
scen_install ffmpeg mpv

log=$SCEN_OUT/$SCEN_NAME.log
seconds=${MEDIA_SECONDS:-3}
movie=$SCEN_WORK/clip.avi
ffmpeg -nostdin -loglevel error \
  -f lavfi -i "testsrc2=size=720x408:rate=25:duration=$seconds" \
  -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=$seconds" \
  -c:v mpeg4 -vtag DX50 -q:v 4 -c:a libmp3lame -b:a 128k "$movie" >>"$log" 2>&1 ||
  scen_die "ffmpeg could not generate the clip (see $log)"

# mpv keeps its configuration and caches under HOME; give it an empty one.
export HOME=$SCEN_WORK XDG_CONFIG_HOME=$SCEN_WORK/config XDG_CACHE_HOME=$SCEN_WORK/cache
scen_record -- mpv --no-config --really-quiet --vo=null --ao=null --no-terminal "$movie"
