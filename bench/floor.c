/*
 * bench/floor.c: the floor that gtr's throughput is given against. One
 * plain pass over a mapped file: count its varint ends (bytes below
 * 0x80) with the count kernel of the ISA chosen as gtr chooses it
 * (GTR_ISA forces one), the file split between -j threads (default 2).
 * The file is mapped as gtr maps it (read-only, sequential, no populate), so that
 * page faults are paid here too.
 *
 *   floor [-j N] FILE   prints: isa=... j=... bytes=... ends=...
 *
 * bench/run.sh times it from outside, as it times gtr.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "simd/isa.h"

enum { MAX_J = 64 };

typedef struct part {
	const gtr_kernels *k;
	const uint8_t *p, *end;
	size_t ends;
} part;

static void *count(void *arg)
{
	part *pt = arg;
	pt->ends = pt->k->uvarint_count(pt->p, pt->end);
	return NULL;
}

int main(int argc, char **argv)
{
	int j = 2;
	const char *file = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-j") == 0 && i + 1 < argc)
			j = atoi(argv[++i]);
		else
			file = argv[i];
	}
	if (!file || j < 1 || j > MAX_J) {
		fprintf(stderr, "usage: floor [-j N] FILE\n");
		return 2;
	}
	gtr_kernels k;
	if (gtr_kernels_init(&k, getenv("GTR_ISA")) != 0) {
		fprintf(stderr, "floor: GTR_ISA=%s: not an ISA this machine runs\n", getenv("GTR_ISA"));
		return 2;
	}
	int fd = open(file, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0) {
		fprintf(stderr, "floor: %s: cannot open, or empty\n", file);
		return 1;
	}
	size_t len = (size_t)st.st_size;
	const uint8_t *d = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (d == MAP_FAILED) {
		perror("floor: mmap");
		return 1;
	}
	(void)madvise((void *)d, len, MADV_SEQUENTIAL); /* as io/map.c */
	part parts[MAX_J];
	pthread_t th[MAX_J];
	for (int i = 0; i < j; i++) {
		parts[i] = (part){&k, d + len / (size_t)j * (size_t)i,
				  i == j - 1 ? d + len : d + len / (size_t)j * (size_t)(i + 1), 0};
		if (i > 0 && pthread_create(&th[i], NULL, count, &parts[i]) != 0) {
			fprintf(stderr, "floor: cannot start a thread\n");
			return 1;
		}
	}
	count(&parts[0]);
	size_t ends = parts[0].ends;
	for (int i = 1; i < j; i++) {
		pthread_join(th[i], NULL);
		ends += parts[i].ends;
	}
	printf("isa=%s j=%d bytes=%zu ends=%zu\n", gtr_isa_name(k.isa), j, len, ends);
	munmap((void *)d, len);
	close(fd);
	return 0;
}
