#!/bin/sh
# placeholder: filled below
. "$(dirname "$0")/lib.sh"
finish
