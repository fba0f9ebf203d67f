def skip_chars(src, pos, chars):
    try:
        while src[pos] in chars:
            pos += 1
    except IndexError:
        pass
    return pos


def first_word(src):
    end = skip_chars(src, 0, "abcdefghijklmnopqrstuvwxyz")
    if end == 0:
        return None
    return src[:end]
