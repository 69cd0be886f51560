#ifndef SSVC_CSYSTEMD_SHIM_H
#define SSVC_CSYSTEMD_SHIM_H

#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>

#endif
