/* dt_pieces_*: piece lists joined or written with writev, and write failures. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"

/* A list of three pieces: "HTTP/1.1 200 OK\r\n" (bytes), a header (atom), a body (str). */
static dt_pieces *response(void) {
    dt_pieces *p = NULL;
    EXPECT_STATUS(DT_OK, dt_pieces_new(&p));
    dt_atom header;
    dt_str body;
    EXPECT_STATUS(DT_OK, dt_table_intern_bytes(dt_table_global(), LIT("content-type: text/plain\r\n\r\n"), &header));
    EXPECT_STATUS(DT_OK, dt_str_from_bytes(LIT("hello from a piece list"), &body));
    EXPECT_STATUS(DT_OK, dt_pieces_append_bytes(p, LIT("HTTP/1.1 200 OK\r\n")));
    EXPECT_STATUS(DT_OK, dt_pieces_append_atom(p, &header));
    EXPECT_STATUS(DT_OK, dt_pieces_append_str(p, &body));
    /* The list holds its own references. */
    EXPECT_STATUS(DT_OK, dt_atom_release(&header));
    EXPECT_STATUS(DT_OK, dt_str_release(&body));
    return p;
}

static const char RESPONSE[] = "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nhello from a piece list";

static void pieces_join_into_a_string(void) {
    dt_pieces *p = response();
    EXPECT(dt_pieces_count(p) == 3 && dt_pieces_len(p) == sizeof RESPONSE - 1);
    dt_str joined;
    EXPECT_STATUS(DT_OK, dt_pieces_to_str(p, &joined));
    const uint8_t *data = NULL;
    size_t len = 0;
    EXPECT_STATUS(DT_OK, dt_str_bytes(&joined, &data, &len));
    EXPECT(bytes_equal(data, len, RESPONSE));
    EXPECT_STATUS(DT_OK, dt_str_release(&joined));
    EXPECT_STATUS(DT_OK, dt_pieces_free(p));
}

static void writev_writes_every_piece_to_a_pipe(void) {
    int fds[2];
    EXPECT(pipe(fds) == 0);
    dt_pieces *p = response();
    size_t written = 0;
    EXPECT_STATUS(DT_OK, dt_pieces_writev(p, fds[1], &written));
    EXPECT(written == sizeof RESPONSE - 1);
    EXPECT_STATUS(DT_OK, dt_pieces_writev(p, fds[1], NULL)); /* written is optional */
    char buf[256] = {0};
    ssize_t n = read(fds[0], buf, sizeof buf);
    EXPECT(n == 2 * (ssize_t)(sizeof RESPONSE - 1));
    EXPECT(memcmp(buf, RESPONSE, sizeof RESPONSE - 1) == 0);
    EXPECT(memcmp(buf + sizeof RESPONSE - 1, RESPONSE, sizeof RESPONSE - 1) == 0);
    close(fds[0]);
    close(fds[1]);
    EXPECT_STATUS(DT_OK, dt_pieces_free(p));
}

static void a_full_device_is_dt_err_io_with_errno(void) {
    int fd = open("/dev/full", O_WRONLY);
    EXPECT(fd >= 0);
    dt_pieces *p = response();
    size_t written = 99;
    errno = 0;
    EXPECT_STATUS(DT_ERR_IO, dt_pieces_writev(p, fd, &written));
    EXPECT(errno == ENOSPC && written == 0);
    close(fd);
    /* A closed descriptor, and a negative one. */
    errno = 0;
    EXPECT_STATUS(DT_ERR_IO, dt_pieces_writev(p, fd, &written));
    EXPECT(errno == EBADF && written == 0);
    errno = 0;
    EXPECT_STATUS(DT_ERR_IO, dt_pieces_writev(p, -1, &written));
    EXPECT(errno == EBADF);
    EXPECT_STATUS(DT_OK, dt_pieces_free(p));
}

static void a_pipe_without_reader_is_epipe(void) {
    signal(SIGPIPE, SIG_IGN);
    int fds[2];
    EXPECT(pipe(fds) == 0);
    close(fds[0]);
    dt_pieces *p = response();
    size_t written = 99;
    errno = 0;
    EXPECT_STATUS(DT_ERR_IO, dt_pieces_writev(p, fds[1], &written));
    EXPECT(errno == EPIPE && written == 0);
    close(fds[1]);
    EXPECT_STATUS(DT_OK, dt_pieces_free(p));
    signal(SIGPIPE, SIG_DFL);
}

static void a_partial_write_reports_the_bytes_that_got_through(void) {
    /* A non-blocking pipe fills up: the bytes written so far come back with EAGAIN. */
    int fds[2];
    EXPECT(pipe(fds) == 0);
    EXPECT(fcntl(fds[1], F_SETFL, O_NONBLOCK) == 0);
    dt_pieces *p = NULL;
    EXPECT_STATUS(DT_OK, dt_pieces_new(&p));
    static uint8_t chunk[4096];
    for (size_t i = 0; i < sizeof chunk; i++) chunk[i] = (uint8_t)('a' + i % 26);
    for (int i = 0; i < 64; i++) EXPECT_STATUS(DT_OK, dt_pieces_append_bytes(p, chunk, sizeof chunk));
    size_t total = dt_pieces_len(p), written = 0;
    EXPECT(total == 64 * sizeof chunk);
    errno = 0;
    EXPECT_STATUS(DT_ERR_IO, dt_pieces_writev(p, fds[1], &written));
    EXPECT(errno == EAGAIN && written > 0 && written < total);
    /* What got through is the start of the joined bytes. */
    uint8_t *got = malloc(written);
    size_t have = 0;
    while (have < written) {
        ssize_t n = read(fds[0], got + have, written - have);
        if (n <= 0) break;
        have += (size_t)n;
    }
    EXPECT(have == written);
    for (size_t i = 0; i < have; i++) {
        if (got[i] != chunk[i % sizeof chunk]) {
            EXPECT(!"pipe contents differ from the pieces");
            break;
        }
    }
    free(got);
    close(fds[0]);
    close(fds[1]);
    EXPECT_STATUS(DT_OK, dt_pieces_free(p));
}

static void bad_arguments(void) {
    dt_pieces *p = NULL;
    EXPECT_STATUS(DT_ERR_NULL, dt_pieces_new(NULL));
    EXPECT_STATUS(DT_OK, dt_pieces_new(&p));
    dt_str released = {0, DT_RELEASED_MARK};
    dt_atom never = {0};
    EXPECT_STATUS(DT_ERR_RELEASED, dt_pieces_append_str(p, &released));
    EXPECT_STATUS(DT_ERR_INVALID_HANDLE, dt_pieces_append_atom(p, &never));
    EXPECT_STATUS(DT_ERR_NULL, dt_pieces_append_str(p, NULL));
    EXPECT_STATUS(DT_ERR_NULL, dt_pieces_append_atom(p, NULL));
    EXPECT_STATUS(DT_ERR_NULL, dt_pieces_append_bytes(p, NULL, 1));
    EXPECT_STATUS(DT_ERR_TOO_LONG, dt_pieces_append_bytes(p, (const uint8_t *)"x", (size_t)DT_MAX_LEN + 1));
    EXPECT(dt_pieces_count(p) == 0 && dt_pieces_len(p) == 0);
    EXPECT_STATUS(DT_OK, dt_pieces_append_bytes(p, NULL, 0));
    EXPECT(dt_pieces_count(p) == 0); /* empty pieces are not kept */
    EXPECT_STATUS(DT_ERR_NULL, dt_pieces_to_str(p, NULL));
    EXPECT_STATUS(DT_ERR_NULL, dt_pieces_to_str(NULL, &released));
    EXPECT_STATUS(DT_ERR_NULL, dt_pieces_writev(NULL, 1, NULL));
    EXPECT_STATUS(DT_ERR_NULL, dt_pieces_append_bytes(NULL, LIT("x")));
    EXPECT_STATUS(DT_ERR_NULL, dt_pieces_append_str(NULL, &released));
    EXPECT_STATUS(DT_ERR_NULL, dt_pieces_append_atom(NULL, &never));
    EXPECT_STATUS(DT_ERR_NULL, dt_pieces_free(NULL));
    EXPECT(dt_pieces_len(NULL) == 0 && dt_pieces_count(NULL) == 0);
    /* Another kind of object where a piece list is expected. */
    dt_builder *b = NULL;
    EXPECT_STATUS(DT_OK, dt_builder_new(0, &b));
    dt_pieces *wrong = (dt_pieces *)(void *)b;
    EXPECT_STATUS(DT_ERR_INVALID_HANDLE, dt_pieces_append_bytes(wrong, LIT("x")));
    EXPECT(dt_pieces_count(wrong) == 0);
    EXPECT_STATUS(DT_ERR_INVALID_HANDLE, dt_pieces_free(wrong));
    EXPECT_STATUS(DT_OK, dt_builder_free(b));
    EXPECT_STATUS(DT_OK, dt_pieces_free(p));
}

int main(void) {
    RUN(pieces_join_into_a_string);
    RUN(writev_writes_every_piece_to_a_pipe);
    RUN(a_full_device_is_dt_err_io_with_errno);
    RUN(a_pipe_without_reader_is_epipe);
    RUN(a_partial_write_reports_the_bytes_that_got_through);
    RUN(bad_arguments);
    FINISH();
}
