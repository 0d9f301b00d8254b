/*
 * mdwe-exec PROGRAM [ARGS...]: runs PROGRAM under the seccomp rule that systemd 252 installs for
 * MemoryDenyWriteExecute=yes (src/shared/seccomp-util.c, seccomp_memory_deny_write_execute), so that
 * deploy/test-systemd-units.sh can show a Swift program works with it where no systemd runs:
 *   mmap with PROT_WRITE|PROT_EXEC        -> EPERM
 *   mprotect/pkey_mprotect with PROT_EXEC -> EPERM
 *   shmat with SHM_EXEC                   -> EPERM
 * x86-64 only (other architectures: exit 3, the test skips). No libseccomp needed: a raw BPF filter.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ARG_LOW(n) (offsetof(struct seccomp_data, args) + 8 * (n))
#define DENY BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))
#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: mdwe-exec PROGRAM [ARGS...]\n");
        return 2;
    }
#if !defined(__x86_64__)
    fprintf(stderr, "mdwe-exec: only written for x86-64\n");
    return 3;
#else
    struct sock_filter filter[] = {
        /* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        /* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        /* 2 */ DENY, /* another ABI's numbers would bypass the rules below (SystemCallArchitectures=native) */
        /* 3 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        /* 4 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mmap, 0, 5),
        /* 5    mmap(addr, len, prot, ...): deny when prot has both PROT_WRITE and PROT_EXEC */
        /* 5 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(2)),
        /* 6 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, PROT_WRITE | PROT_EXEC),
        /* 7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PROT_WRITE | PROT_EXEC, 0, 1),
        /* 8 */ DENY,
        /* 9 */ ALLOW,
        /* 10 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mprotect, 1, 0),
        /* 11 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pkey_mprotect, 0, 4),
        /* 12   mprotect(addr, len, prot): any PROT_EXEC is denied */
        /* 12 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(2)),
        /* 13 */ BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, 1),
        /* 14 */ DENY,
        /* 15 */ ALLOW,
        /* 16 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_shmat, 0, 4),
        /* 17   shmat(id, addr, flags): SHM_EXEC is denied */
        /* 17 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(2)),
        /* 18 */ BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, SHM_EXEC, 0, 1),
        /* 19 */ DENY,
        /* 20 */ ALLOW,
        /* 21 */ ALLOW,
    };
    struct sock_fprog program = { .len = sizeof filter / sizeof filter[0], .filter = filter };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        fprintf(stderr, "mdwe-exec: PR_SET_NO_NEW_PRIVS: %s\n", strerror(errno));
        return 1;
    }
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
        fprintf(stderr, "mdwe-exec: PR_SET_SECCOMP: %s\n", strerror(errno));
        return 1;
    }
    execvp(argv[1], argv + 1);
    fprintf(stderr, "mdwe-exec: cannot run %s: %s\n", argv[1], strerror(errno));
    return 127;
#endif
}
