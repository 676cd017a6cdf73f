# transcoded: the gRPC transcoding daemon for GPU nodes, on Debian 13 (trixie, FFmpeg 7.1).
#
#   docker build --build-arg TC_VERSION="$(cat VERSION)" --build-arg TC_REVISION="$(git rev-parse HEAD)" \
#       -t localhost/transcoded:"$(cat VERSION)" .   # or: buildah build ... (deploy/README.md)
#   docker run -d --device /dev/dri --group-add "$(getent group render | cut -d: -f3)" \
#       -v transcoded-state:/var/lib/transcoded -v /srv/media:/srv/media -p 50051:50051 transcoded
#   docker run --rm --device /dev/dri -v "$PWD:/srv/media" --entrypoint transcode transcoded \
#       run /srv/media/in.mp4 /srv/media/out.mp4 --size 1280x720        # a one-off transcode
#   docker run --rm --device /dev/dri --group-add "$(stat -c %g /dev/dri/renderD128)" \
#       --entrypoint transcode transcoded doctor      # what is wrong with the GPU here, and the fix
#
# BASE: any Debian 13 image; scripts/container-test passes one it made with debootstrap.
# TC_VERSION: the repository's VERSION file, the one place the version is stated; the build
# refuses any other value, and the image's org.opencontainers.image.version label carries it;
# tag the image with it too (the Kubernetes manifests name localhost/transcoded:VERSION).
# TC_REVISION: the commit built (org.opencontainers.image.revision); TC_SOURCE: where its source
# is published (org.opencontainers.image.source).
# TC_TESTS=ON builds the tests too and runs the unit and integration tests against FFmpeg 7.1
# with -Werror before anything is copied into the runtime image (scripts/container-test).
ARG BASE=docker.io/library/debian:trixie

# ---------------------------------------------------------------------------------------------
FROM ${BASE} AS build
ARG TC_VERSION
ARG TC_TESTS=OFF
ARG TC_TEST_LABELS=unit|integration
# No documentation in any layer (also in the runtime stage): smaller images, faster vfs copies.
COPY deploy/container/dpkg-nodoc /etc/dpkg/dpkg.cfg.d/01-nodoc
# The packages are scripts/deps' lists (`build`, and `test` for TC_TESTS=ON): one list for
# Debian 12 and 13 alike.
COPY scripts/deps /usr/local/lib/transcoded-deps
RUN set -eux; \
    steps=build; if [ "$TC_TESTS" = ON ]; then steps="build test"; fi; \
    /usr/local/lib/transcoded-deps $steps; \
    apt-get clean; \
    rm -rf /var/lib/apt/lists/* /usr/local/lib/transcoded-deps
COPY . /src
# One RUN: configure, build, (test), and list the runtime packages: those that own the shared
# libraries the two binaries load, as dh_shlibdeps would (no hand-kept list of sonames).
RUN set -eux; \
    if [ "$TC_VERSION" != "$(cat /src/VERSION)" ]; then \
      echo "build with --build-arg TC_VERSION=$(cat /src/VERSION) (from VERSION), not '$TC_VERSION'" >&2; \
      exit 1; \
    fi; \
    cmake -S /src -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DTC_WERROR=ON \
          -DTC_TESTS="$TC_TESTS"; \
    cmake --build /build --parallel "$(nproc)"; \
    if [ "$TC_TESTS" = ON ]; then \
      useradd --create-home tester; chown -R tester /build; \
      su tester -c "cd /build && ctest -L '$TC_TEST_LABELS' --output-on-failure --timeout 600"; \
    fi; \
    mkdir -p /out/bin; \
    install -m 0755 /build/service/transcode /build/service/daemon/transcoded /out/bin/; \
    strip /out/bin/*; \
    ldd /out/bin/* | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u \
      | xargs -r realpath | xargs -r dpkg-query --search \
      | cut -d: -f1 | sort -u > /out/runtime-packages; \
    cat /out/runtime-packages; \
    rm -rf /build

# ---------------------------------------------------------------------------------------------
FROM ${BASE} AS runtime
ARG TC_VERSION
ARG TC_REVISION=unknown
ARG TC_SOURCE=unknown
LABEL org.opencontainers.image.title="transcoded" \
      org.opencontainers.image.version="${TC_VERSION}" \
      org.opencontainers.image.revision="${TC_REVISION}" \
      org.opencontainers.image.source="${TC_SOURCE}" \
      org.opencontainers.image.licenses="GPL-2.0-or-later"
COPY deploy/container/dpkg-nodoc /etc/dpkg/dpkg.cfg.d/01-nodoc
COPY --from=build /out/runtime-packages /tmp/runtime-packages
# Intel's media driver (iHD: Broadwell and later, all of Gen12/Xe) is in non-free. QSV needs a
# GPU runtime behind FFmpeg's oneVPL dispatcher (libvpl2, among the runtime packages): oneVPL's
# libmfx-gen1.2 (main) drives Gen12 (Tiger Lake) and newer. Gen8-Gen11 would need Media SDK's
# libmfx1, which Debian 13 no longer ships: `transcode` refuses QSV there, naming it.
RUN set -eux; \
    export DEBIAN_FRONTEND=noninteractive; \
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then \
      sed -i 's/^Components: main$/Components: main non-free non-free-firmware/' \
        /etc/apt/sources.list.d/debian.sources; \
    else \
      sed -i -E 's/^(deb .* main)$/\1 non-free non-free-firmware/' /etc/apt/sources.list; \
    fi; \
    apt-get update; \
    apt-get install -y --no-install-recommends $(cat /tmp/runtime-packages) \
      libva-drm2 intel-media-va-driver-non-free libmfx-gen1.2 vainfo ca-certificates; \
    apt-get clean; \
    rm -rf /var/lib/apt/lists/* /tmp/runtime-packages; \
    getent group render >/dev/null || groupadd --system render; \
    groupadd --system --gid 10001 transcoded; \
    useradd --system --uid 10001 --gid transcoded --groups render,video \
            --home-dir /var/lib/transcoded --no-create-home --shell /usr/sbin/nologin transcoded; \
    mkdir -p /etc/transcoded /var/lib/transcoded /srv/media; \
    chown transcoded:transcoded /var/lib/transcoded /srv/media
COPY --from=build /out/bin/ /usr/local/bin/
COPY deploy/container/transcoded.yaml /etc/transcoded/transcoded.yaml

USER transcoded
WORKDIR /srv/media
VOLUME ["/var/lib/transcoded", "/srv/media"]
EXPOSE 50051 9464
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["/usr/local/bin/transcode", "health", "--server", "127.0.0.1:50051"]
ENTRYPOINT ["/usr/local/bin/transcoded"]
CMD ["--config", "/etc/transcoded/transcoded.yaml"]
