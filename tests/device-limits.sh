# Sizes derived from what the device reports, so that no test assumes the machine it runs on.
# Sourced by tests/e2e.sh and tests/e2e-hardening.sh.

# oversized_for_device BIN: a -g size 65536 x H (within --max-pixels' ceiling of 2^30 pixels)
# whose one plane is larger than the default device's largest buffer
# (CL_DEVICE_MAX_MEM_ALLOC_SIZE), or whose two planes are larger than its memory
# (CL_DEVICE_GLOBAL_MEM_SIZE), by a quarter, since a CPU device such as PoCL reports what is
# free when it starts and that moves between two runs. Prints nothing when the device can hold
# every image the ceiling allows (a GPU or CPU device with more than 8 GiB for one run).
oversized_for_device() {
    "$1" -l --json 2>/dev/null | awk '
        function field(name,    s) {
            if (!match($0, "\"" name "\": [0-9]+"))
                return -1
            s = substr($0, RSTART, RLENGTH)
            sub(/.*: /, "", s)
            return s + 0
        }
        /"default": true/ {
            row = 65536 * 4
            alloc = field("max_alloc_bytes"); global = field("global_mem_bytes")
            if (alloc < 0 || global < 0)
                exit
            h = int(1.25 * alloc / row) + 1
            hg = int(1.25 * global / (2 * row)) + 1
            if (hg < h)
                h = hg
            if (h <= 16384)
                printf "65536x%d\n", h
            exit
        }'
}
