#!/usr/bin/env bash
# The order the folder's runs were started in, one after another (nohup ./chain.sh &).
cd "$(dirname "$0")"
./run.sh tmpfs
./run.sh memory
./run.sh disk
