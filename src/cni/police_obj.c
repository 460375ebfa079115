// SPDX-License-Identifier: GPL-2.0
/* pod_police's object, embedded: alone here, as its skeleton's struct
 * pod_police would clash with the map value's (include/pod_police.h). */
#include "police.h"
#include "pod_police.skel.h"

const void *police_elf(size_t *sz)
{
	return pod_police__elf_bytes(sz);
}
